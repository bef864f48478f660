/*
 * One app for merchants (/console) and, later, operators (/ops): the same build is served at
 * both, and the base path is whichever the page was opened under.
 */
export const basePath = window.location.pathname.startsWith('/ops') ? '/ops' : '/console';

/** Operators sign in to their own realm: an e-mail invited by a merchant is never an operator. */
export const realm: 'merchant' | 'operator' = basePath === '/ops' ? 'operator' : 'merchant';
