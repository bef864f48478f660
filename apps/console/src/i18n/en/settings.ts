/** Settings in English: team, security (sessions and passkeys) and activity. */
export const settingsMessages = {
  'team.title': 'Team',
  'team.members': 'Members',
  'team.pending': 'Pending invitations',
  'team.noPending': 'No pending invitations.',
  'team.email': 'Email',
  'team.role': 'Role',
  'team.expires': 'Expires',
  'team.joined': 'Joined',
  'team.invite': 'Invite member',
  'team.send': 'Create invitation',
  'team.inviteCreated':
    'Send this link to {email}. It works once, until {date}, and is shown only now.',
  'team.invitationUrl': 'Invitation link',
  'team.close': 'Close',

  'security.title': 'Security',
  'security.sessions': 'Signed-in sessions',
  'security.intro': 'Where you are signed in. Sign out of any session you do not recognise.',
  'security.device': 'Device',
  'security.ip': 'IP address',
  'security.signedIn': 'Signed in',
  'security.lastSeen': 'Last seen',
  'security.actions': 'Actions',
  'security.unknownDevice': 'Unknown device',
  'security.thisSession': 'This session',
  'security.signOut': 'Sign out',
  'security.signOutNamed': 'Sign out of the session signed in on {date}',
  'security.signOutTitle': 'Sign out of this session',
  'security.signOutConfirm':
    'Sign out of {device}, signed in on {date}? It must sign in again with a password and two-factor code.',

  'passkeys.title': 'Passkeys',
  'passkeys.intro':
    'A passkey can be used instead of the authentication code when you sign in. Your authenticator app stays: its codes and your recovery codes still work.',
  'passkeys.empty': 'No passkeys yet.',
  'passkeys.name': 'Name',
  'passkeys.created': 'Added',
  'passkeys.lastUsed': 'Last used',
  'passkeys.neverUsed': 'Never',
  'passkeys.actions': 'Actions',
  'passkeys.add': 'Add a passkey',
  'passkeys.addIntro':
    'Name the passkey, enter the current code of your authenticator app, then follow your browser.',
  'passkeys.defaultName': 'Passkey',
  'passkeys.continue': 'Continue',
  'passkeys.added': 'Passkey {name} added.',
  'passkeys.remove': 'Remove',
  'passkeys.removeNamed': 'Remove passkey {name}',
  'passkeys.removeTitle': 'Remove this passkey',
  'passkeys.removeConfirm':
    'Remove passkey {name}? It will no longer sign you in. Enter the current code of your authenticator app.',
  'passkeys.unsupported': 'This browser cannot use passkeys.',
  'passkeys.browserCancelled':
    'The browser did not use a passkey (cancelled, timed out or not allowed). Try again.',

  'activity.title': 'Activity',
  'activity.intro': 'What members, operators and the command line changed, newest first.',
  'activity.empty': 'No activity yet.',
  'activity.time': 'Time',
  'activity.action': 'Action',
  'activity.actor': 'By',
  'activity.target': 'Target',
  'activity.ip': 'IP address',

  // Password reset links (issue 25).
  'team.actions': 'Actions',
  'team.resetLink': 'Reset link',
  'team.resetLinkNamed': 'Create a password reset link for {email}',
  'team.resetLinkTitle': 'Password reset link',
  'team.resetLinkConfirm':
    'Create a password reset link for {email}? An earlier link for them stops working.',
  'team.resetLinkCreate': 'Create reset link',
  'team.resetLinkCreated':
    'Give this link to {email} yourself: the console sends no e-mail. It works once, until {date}, and still asks for their authentication code.',
  'team.resetLinkUrl': 'Password reset link',
} as const;
