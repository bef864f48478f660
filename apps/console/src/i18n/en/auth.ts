/**
 * Signing in, in English: the sign-in and two-factor pages, invitations, forgotten and reset
 * passwords.
 */
export const authMessages = {
  'signIn.title': 'Sign in',
  'signIn.email': 'Email',
  'signIn.password': 'Password',
  'signIn.submit': 'Sign in',

  'twoFactor.title': 'Two-factor authentication',
  'twoFactor.intro':
    'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
  'twoFactor.code': 'Authentication code',
  'twoFactor.submit': 'Verify',

  'invitation.title': 'Accept invitation',
  'invitation.missingToken': 'This invitation link is incomplete. Ask for a new invitation.',
  'invitation.summary': 'You have been invited to {merchant} as {role}, with the email {email}.',
  'invitation.expires': 'The invitation expires on {date}.',
  'invitation.operatorSummary': 'You have been invited as an operator, with the email {email}.',
  'invitation.password': 'Password',
  'invitation.passwordHint': 'At least 12 characters. A passphrase of several words is best.',
  'invitation.submit': 'Set password',
  'invitation.enrolTitle': 'Set up two-factor authentication',
  'invitation.enrolIntro':
    'Scan this QR code with an authenticator app, or enter the secret below, then enter the code it shows.',
  'invitation.qrAlt': 'QR code of your two-factor secret',
  'invitation.secret': 'Secret',
  'invitation.recoveryTitle': 'Save your recovery codes',
  'invitation.recoveryIntro':
    'Each code signs you in once if you lose your authenticator. They are shown only now: keep them somewhere safe.',
  'invitation.continue': 'Continue',

  // Issue 25: a second merchant for an existing account.
  'invitation.existingIntro':
    'You already have an account with {email}. Sign in with it to join {merchant}.',
  'invitation.acceptedTitle': 'Invitation accepted',
  'invitation.acceptedIntro': 'You are now a member of {merchant} as {role}.',
  'invitation.openConsole': 'Open the console',
  'invitation.acceptSubmit': 'Accept invitation',

  'twoFactor.usePasskey': 'Use a passkey',
  'twoFactor.orPasskey': 'Or sign in with a passkey instead of the code.',

  // Password reset links (issue 25).
  'signIn.forgotPassword': 'Forgot password?',
  'forgotPassword.title': 'Forgot your password?',
  'forgotPassword.merchant':
    'The console sends no e-mail. Ask an owner or admin of your team for a password reset link: they create one on the Team page. An owner without another owner asks the service’s operator.',
  'forgotPassword.operator':
    'Ask an administrator of the service for a password reset link (the ops:reset-password command).',
  'forgotPassword.rules':
    'A link works once, for one hour, and you still need your authentication code or a recovery code.',
  'forgotPassword.back': 'Back to sign in',
  'resetPassword.title': 'Set a new password',
  'resetPassword.for': 'For {email}.',
  'resetPassword.newPassword': 'New password',
  'resetPassword.passwordHint': '12 to 128 characters.',
  'resetPassword.codeHint':
    'The current code of your authenticator app, or one of your recovery codes.',
  'resetPassword.submit': 'Set new password',
  'resetPassword.done':
    'Your password is changed and every session of your account is signed out. Sign in with the new password.',
  'resetPassword.signIn': 'Sign in',
  'resetPassword.missingToken': 'Open the full reset link you were given.',
  'resetPassword.gone': 'This reset link is unknown, already used or expired. Ask for a new one.',
  'resetPassword.wrongCode':
    'Incorrect or already used code. Enter the current code of your authenticator app, or a recovery code.',
} as const;
