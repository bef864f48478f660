export * from './console.module';
export * from './audit/audit-log';
export * from './two-factor/two-factor-verifier';
export * from './invitations/cli-invitations';
export * from './password-reset/cli-password-resets';
export * from './sign-in/sign-in-paths';
