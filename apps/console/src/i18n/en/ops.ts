/** The operator area and viewing as a merchant, in English. */
export const opsMessages = {
  'ops.title': 'Operations',
  'ops.roleAdmin': 'Admin',
  'ops.roleSupport': 'Support',
  'ops.reviews': 'Payout reviews',
  'ops.reviewsIntro':
    'Payouts held for review, oldest first. Approving sends the payout; rejecting gives the funds back to the merchant.',
  'ops.reviewsEmpty': 'No payout is waiting for review.',
  'ops.merchant': 'Merchant',
  'ops.reasons': 'Held because',
  'ops.approve': 'Approve',
  'ops.approveNamed': 'Approve payout {id}',
  'ops.reject': 'Reject',
  'ops.rejectNamed': 'Reject payout {id}',
  'ops.rejectTitle': 'Reject payout',
  'ops.rejectIntro': 'Reject the payout of {amount} for {merchant}? The merchant sees the reason.',
  'ops.rejectReason': 'Reason',
  'ops.merchants': 'Merchants',
  'ops.merchantName': 'Name',
  'ops.merchantId': 'Merchant id',
  'ops.kind': 'Kind',
  'ops.activeKeys': 'Active keys',
  'ops.revokedKeys': 'Revoked keys',
  'ops.backToMerchants': '← All merchants',
  'ops.keyState': 'State',
  'ops.active': 'Active',
  'ops.revokedOn': 'Revoked on {date}',
  'ops.expiresOn': 'Expires on {date}',
  'ops.viewAs': 'View as merchant',
  'ops.viewAsTitle': 'View as {merchant}',
  'ops.viewAsIntro':
    'You will see the console as a viewer of this merchant, read-only. The merchant’s team sees who looked, when and why.',
  'ops.viewAsReason': 'Reason (ticket and a sentence, 10 characters at least)',
  'ops.viewAsMinutes': 'Minutes (1 to 60)',
  'ops.viewAsStart': 'Start viewing',
  'ops.revokeKeyIntro':
    'Revoke {name} of {merchant}? Calls made with it fail within a second. The merchant’s activity log shows that you revoked it. This cannot be undone.',
  'ops.notInConsoleTitle': 'You are signed in as an operator',
  'ops.notInConsoleIntro':
    'The merchant console shows a merchant’s data only while you view as that merchant. Start a view from a merchant’s page in the operator area.',
  'ops.openOperatorArea': 'Open the operator area',

  'viewAs.label': 'Viewing as merchant',
  'viewAs.banner':
    '{operator} is viewing {merchant} as a read-only viewer until {date}. Every view is in the merchant’s activity log.',
  'viewAs.reason': 'Reason: {reason}',
  'viewAs.end': 'End view',
} as const;
