import request from 'supertest';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  auditOf,
  ConsoleMember,
  PASSWORD,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
} from '../support/console-identity';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { TestApi, TestMerchant } from '../support/test-app';
import { SignInThrottle } from '../../libs/console/src/sign-in/sign-in-throttle';

describe('Console passkeys (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let member: ConsoleMember;
  let relyingParty: { rpId: string; origin: string };

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Passkeys Shop' });
    member = await signedInMember(api, merchant, 'owner');
    const url = new URL(api.app.get<AppConfig>(APP_CONFIG).publicUrl);
    relyingParty = { rpId: url.hostname, origin: url.origin };
  }, 120_000);

  afterAll(async () => {
    await api.close();
  });

  /**
   * A current TOTP code the server has not seen: the test's stand-in for waiting for the
   * authenticator app's next 30-second step (each step is accepted once).
   */
  async function freshCode(user: ConsoleMember): Promise<string> {
    await api.dataSource.query(`UPDATE console_users SET totp_last_step = NULL WHERE id = $1`, [
      user.userId,
    ]);
    return totpCode(user.secret);
  }

  const unsafe = (user: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': user.csrf });

  async function addPasskey(
    user: ConsoleMember,
    authenticator: SoftwareAuthenticator,
    name: string,
  ) {
    const options = await user.agent
      .post('/console/api/security/passkeys/registration-options')
      .set(unsafe(user))
      .send({ two_factor_code: await freshCode(user) })
      .expect(200);
    return user.agent
      .post('/console/api/security/passkeys')
      .set(unsafe(user))
      .send({ name, response: authenticator.register(options.body.challenge as string) });
  }

  async function passwordStep(email: string) {
    const agent = request.agent(api.http);
    const response = await agent
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email, password: PASSWORD })
      .expect(200);
    return {
      agent,
      headers: { ...SAME_ORIGIN, 'X-CSRF-Token': response.body.csrf_token as string },
    };
  }

  async function passkeyOptions(attempt: Awaited<ReturnType<typeof passwordStep>>) {
    const options = await attempt.agent
      .post('/console/api/sign-in/passkey/options')
      .set(attempt.headers)
      .expect(200);
    return options.body as { challenge: string; rpId: string; userVerification: string };
  }

  const forgetFailures = (email: string) =>
    api.app.get(SignInThrottle).forget(api.dataSource.manager, 'merchant', email);

  describe('one member with one passkey', () => {
    let authenticator: SoftwareAuthenticator;
    let passkeyId: string;

    it('asks for a fresh code before a passkey can be added', async () => {
      const missing = await member.agent
        .post('/console/api/security/passkeys/registration-options')
        .set(unsafe(member))
        .send({})
        .expect(401);
      expect(missing.body.error.code).toBe('two_factor_required');
      const wrong = await member.agent
        .post('/console/api/security/passkeys/registration-options')
        .set(unsafe(member))
        .send({ two_factor_code: '000000' })
        .expect(400);
      expect(wrong.body.error.code).toBe('parameter_invalid');
      // Nothing to answer: no challenge was issued.
      const stray = new SoftwareAuthenticator(relyingParty);
      const refused = await member.agent
        .post('/console/api/security/passkeys')
        .set(unsafe(member))
        .send({ name: 'Stray', response: stray.register('AAAA') })
        .expect(409);
      expect(refused.body.error.code).toBe('invalid_state');
    });

    it('refuses a registration from another origin, and its challenge is spent', async () => {
      const options = await member.agent
        .post('/console/api/security/passkeys/registration-options')
        .set(unsafe(member))
        .send({ two_factor_code: await freshCode(member) })
        .expect(200);
      expect(options.body.rp).toEqual({ id: relyingParty.rpId, name: 'Merchant console' });
      expect(options.body.authenticatorSelection.userVerification).toBe('preferred');
      const other = new SoftwareAuthenticator(relyingParty);
      const foreign = await member.agent
        .post('/console/api/security/passkeys')
        .set(unsafe(member))
        .send({
          name: 'Phished',
          response: other.register(options.body.challenge, { origin: 'https://evil.example' }),
        })
        .expect(400);
      expect(foreign.body.error.code).toBe('parameter_invalid');
      const again = await member.agent
        .post('/console/api/security/passkeys')
        .set(unsafe(member))
        .send({ name: 'Phished', response: other.register(options.body.challenge) })
        .expect(409);
      expect(again.body.error.code).toBe('invalid_state');
    });

    it('adds a passkey: listed, stored with its key, counter and transports, audited', async () => {
      authenticator = new SoftwareAuthenticator(relyingParty);
      const added = await addPasskey(member, authenticator, 'Laptop');
      expect(added.status).toBe(201);
      expect(added.body).toEqual({
        id: expect.any(String),
        name: 'Laptop',
        created_at: expect.any(String),
        last_used_at: null,
      });
      passkeyId = added.body.id;
      const list = await member.agent.get('/console/api/security/passkeys').expect(200);
      expect(list.body).toEqual([added.body]);
      const [stored] = await api.dataSource.query(
        `SELECT credential_id, sign_count, transports, length(public_key) > 0 AS has_key
           FROM console_passkeys WHERE id = $1`,
        [passkeyId],
      );
      expect(stored).toEqual({
        credential_id: authenticator.id,
        sign_count: '0',
        transports: ['internal'],
        has_key: true,
      });
      const [entry] = await auditOf(api, member.userId);
      expect(entry).toMatchObject({
        action: 'passkey.added',
        merchant_id: merchant.id,
        details: { name: 'Laptop' },
      });
    });

    it('refuses the same passkey twice', async () => {
      const again = await addPasskey(member, authenticator, 'Laptop again');
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('resource_already_exists');
    });

    it('signs in with the passkey instead of the code: the session rotates as after TOTP', async () => {
      const attempt = await passwordStep(member.email);
      const available = await attempt.agent.get('/console/api/sign-in/passkey').expect(200);
      expect(available.body).toEqual({ available: true });
      const options = await passkeyOptions(attempt);
      expect(options.rpId).toBe(relyingParty.rpId);
      expect(options.userVerification).toBe('preferred');
      const done = await attempt.agent
        .post('/console/api/sign-in/passkey')
        .set(attempt.headers)
        .send({ response: authenticator.assert(options.challenge) })
        .expect(200);
      expect(done.body).toEqual({ signed_in: true, csrf_token: expect.any(String) });
      expect(done.body.csrf_token).not.toBe(attempt.headers['X-CSRF-Token']);
      await attempt.agent.get('/v1/balances').expect(200);
      const entries = await auditOf(api, member.userId);
      expect(
        entries
          .slice(0, 2)
          .map((entry) => entry.action)
          .sort(),
      ).toEqual(['passkey.used', 'user.signed_in']);
      expect(entries.find((entry) => entry.action === 'user.signed_in')?.details).toEqual({
        method: 'passkey',
      });
      const list = await member.agent.get('/console/api/security/passkeys').expect(200);
      expect(list.body[0].last_used_at).toEqual(expect.any(String));
      const [stored] = await api.dataSource.query(
        `SELECT sign_count FROM console_passkeys WHERE id = $1`,
        [passkeyId],
      );
      expect(stored.sign_count).toBe(String(authenticator.signCount));
    });

    it('uses a challenge once, only in its own sign-in attempt, and for 5 minutes', async () => {
      // Answered twice: the second answer finds no challenge.
      const first = await passwordStep(member.email);
      const options = await passkeyOptions(first);
      const assertion = authenticator.assert(options.challenge);
      await first.agent
        .post('/console/api/sign-in/passkey')
        .set(first.headers)
        .send({ response: assertion })
        .expect(200);
      const replayed = await passwordStep(member.email);
      await replayed.agent
        .post('/console/api/sign-in/passkey')
        .set(replayed.headers)
        .send({ response: assertion })
        .expect(401);
      await replayed.agent.get('/v1/balances').expect(401);

      // Another attempt's challenge does not answer this one.
      const mine = await passwordStep(member.email);
      const theirs = await passwordStep(member.email);
      const theirOptions = await passkeyOptions(theirs);
      await passkeyOptions(mine);
      await mine.agent
        .post('/console/api/sign-in/passkey')
        .set(mine.headers)
        .send({ response: authenticator.assert(theirOptions.challenge) })
        .expect(401);

      // Expired.
      const late = await passwordStep(member.email);
      const lateOptions = await passkeyOptions(late);
      await api.dataSource.query(
        `UPDATE console_passkey_challenges SET expires_at = now() - interval '1 second'
          WHERE challenge = $1`,
        [lateOptions.challenge],
      );
      await late.agent
        .post('/console/api/sign-in/passkey')
        .set(late.headers)
        .send({ response: authenticator.assert(lateOptions.challenge) })
        .expect(401);
      await late.agent.get('/v1/balances').expect(401);
      await forgetFailures(member.email);
    });

    it('refuses another origin at sign-in', async () => {
      const attempt = await passwordStep(member.email);
      const options = await passkeyOptions(attempt);
      await attempt.agent
        .post('/console/api/sign-in/passkey')
        .set(attempt.headers)
        .send({
          response: authenticator.assert(options.challenge, {
            origin: relyingParty.origin.replace(/:\d+$/, '') + ':1',
          }),
        })
        .expect(401);
      await forgetFailures(member.email);
    });

    it('refuses a sign counter that goes back, and audits it', async () => {
      const [stored] = await api.dataSource.query(
        `SELECT sign_count FROM console_passkeys WHERE id = $1`,
        [passkeyId],
      );
      const storedCount = Number(stored.sign_count);
      expect(storedCount).toBeGreaterThan(0);
      const attempt = await passwordStep(member.email);
      const options = await passkeyOptions(attempt);
      // A clone reports the count the original last reported (or less).
      const cloned = await attempt.agent
        .post('/console/api/sign-in/passkey')
        .set(attempt.headers)
        .send({ response: authenticator.assert(options.challenge, { signCount: storedCount }) })
        .expect(401);
      expect(cloned.body.error.code).toBe('authentication_failed');
      await attempt.agent.get('/v1/balances').expect(401);
      const entries = await auditOf(api, member.userId);
      expect(
        entries
          .slice(0, 2)
          .map((entry) => entry.action)
          .sort(),
      ).toEqual(['passkey.sign_counter_regressed', 'user.sign_in_failed']);
      expect(
        entries.find((entry) => entry.action === 'passkey.sign_counter_regressed')?.details,
      ).toEqual({
        name: 'Laptop',
        stored_sign_count: storedCount,
        reported_sign_count: storedCount,
      });
      expect(entries.find((entry) => entry.action === 'user.sign_in_failed')?.details).toEqual({
        reason: 'two_factor',
        method: 'passkey',
        check: 'sign_counter',
      });
      await forgetFailures(member.email);
    });

    it('counts passkey failures in the same lockout as wrong codes', async () => {
      const impostor = new SoftwareAuthenticator(relyingParty);
      // One wrong code, then passkeys the account does not have: the 5th failure locks.
      const attempt = await passwordStep(member.email);
      await attempt.agent
        .post('/console/api/sign-in/two-factor')
        .set(attempt.headers)
        .send({ code: '000000' })
        .expect(401);
      for (let failure = 2; failure <= 5; failure += 1) {
        const options = await passkeyOptions(attempt);
        const refused = await attempt.agent
          .post('/console/api/sign-in/passkey')
          .set(attempt.headers)
          .send({ response: impostor.assert(options.challenge) });
        // The password's charge was given back: these are failures 2 to 5, and the 5th locks.
        expect(refused.status).toBe(failure < 5 ? 401 : 429);
        if (failure === 5) expect(refused.headers['retry-after']).toEqual(expect.any(String));
      }
      // Now even the right passkey waits for the lock.
      const options = await passkeyOptions(attempt);
      await attempt.agent.get('/v1/balances').expect(401);
      const refusedWhileLocked = await attempt.agent
        .post('/console/api/sign-in/passkey')
        .set(attempt.headers)
        .send({ response: authenticator.assert(options.challenge) })
        .expect(429);
      expect(refusedWhileLocked.body.error.code).toBe('rate_limited');
      await forgetFailures(member.email);
    });

    it('keeps TOTP: the code still signs in an account with a passkey', async () => {
      const attempt = await passwordStep(member.email);
      await attempt.agent
        .post('/console/api/sign-in/two-factor')
        .set(attempt.headers)
        .send({ code: await freshCode(member) })
        .expect(200);
      await attempt.agent.get('/v1/balances').expect(200);
    });

    it('removes a passkey with a fresh code, audited; it no longer signs in', async () => {
      const missing = await member.agent
        .delete(`/console/api/security/passkeys/${passkeyId}`)
        .set(unsafe(member))
        .send({})
        .expect(401);
      expect(missing.body.error.code).toBe('two_factor_required');
      await member.agent
        .delete(`/console/api/security/passkeys/${passkeyId}`)
        .set(unsafe(member))
        .send({ two_factor_code: await freshCode(member) })
        .expect(204);
      const list = await member.agent.get('/console/api/security/passkeys').expect(200);
      expect(list.body).toEqual([]);
      const [entry] = await auditOf(api, member.userId);
      expect(entry).toMatchObject({ action: 'passkey.removed', details: { name: 'Laptop' } });

      const attempt = await passwordStep(member.email);
      const available = await attempt.agent.get('/console/api/sign-in/passkey').expect(200);
      expect(available.body).toEqual({ available: false });
      const none = await attempt.agent
        .post('/console/api/sign-in/passkey/options')
        .set(attempt.headers)
        .expect(409);
      expect(none.body.error.code).toBe('invalid_state');
    });
  });

  it("does not remove another user's passkey", async () => {
    const other = await signedInMember(api, merchant, 'admin', 'passkey-other');
    const added = await addPasskey(other, new SoftwareAuthenticator(relyingParty), 'Phone');
    expect(added.status).toBe(201);
    await member.agent
      .delete(`/console/api/security/passkeys/${added.body.id}`)
      .set(unsafe(member))
      .send({ two_factor_code: await freshCode(member) })
      .expect(404);
    const list = await other.agent.get('/console/api/security/passkeys').expect(200);
    expect(list.body).toHaveLength(1);
  });
});
