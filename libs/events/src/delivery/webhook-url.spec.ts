import { AddressPolicy } from './address-policy';
import { boundedResolver, checkWebhookUrl, ipLiteralHost, Resolver } from './webhook-url';

const PRODUCTION: AddressPolicy = { allowPrivate: false };
const DEVELOPMENT: AddressPolicy = { allowPrivate: true };

// Test hostnames resolve from this table; no real DNS is asked (except `localhost`, below).
const RECORDS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'split-horizon.example.com': ['93.184.216.34', '10.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'internal.example.com': ['10.0.0.1'],
  'broken.example.com': ['not-an-ip'],
};
const resolver: Resolver = async (hostname) => {
  const addresses = RECORDS[hostname];
  if (!addresses)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses;
};

const PUBLIC_ONLY = 'webhooks are delivered only to public addresses.';
const PRIVATE_TOO = 'webhooks are delivered only to public, private and loopback addresses.';

describe('checkWebhookUrl', () => {
  it.each([
    ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
    ['https://hooks.example.com/webhooks?shop=1', 'https://hooks.example.com/webhooks?shop=1'],
    ['HTTPS://Hooks.Example.COM:8443/a/../b', 'https://hooks.example.com:8443/b'],
    ['https://[2606:4700:4700::1111]/hook', 'https://[2606:4700:4700::1111]/hook'],
  ])('accepts %s in production, normalized', async (raw, normalized) => {
    await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
      ok: true,
      url: normalized,
    });
  });

  it.each([
    ['http://127.0.0.1:4000/hook', 'http://127.0.0.1:4000/hook'],
    ['https://127.0.0.1/hook', 'https://127.0.0.1/hook'],
    ['http://[::1]:4000/hook', 'http://[::1]:4000/hook'],
    ['http://internal.example.com/hook', 'http://internal.example.com/hook'],
    ['http://localhost:4000/hook', 'http://localhost:4000/hook'],
  ])('accepts %s with allowPrivate', async (raw, normalized) => {
    // `localhost` goes through the default resolver, which reads /etc/hosts.
    const resolve = raw.includes('localhost') ? undefined : resolver;
    await expect(checkWebhookUrl(raw, DEVELOPMENT, resolve)).resolves.toEqual({
      ok: true,
      url: normalized,
    });
  });

  it.each([
    ['http://8.8.8.8/hook', PRODUCTION, 'url must use https.'],
    ['ftp://8.8.8.8/hook', PRODUCTION, 'url must use https.'],
    ['ftp://127.0.0.1/hook', DEVELOPMENT, 'url must use http or https.'],
    ['file:///etc/passwd', DEVELOPMENT, 'url must use http or https.'],
    ['javascript:alert(1)', PRODUCTION, 'url must use https.'],
  ])('refuses the scheme of %s', async (raw, policy, reason) => {
    await expect(checkWebhookUrl(raw, policy, resolver)).resolves.toEqual({ ok: false, reason });
  });

  it.each([
    ['not a url'],
    [''],
    ['hooks.example.com/webhooks'],
    ['https://'],
    ['https://exa mple.com/'],
    ['https://[::1/'],
  ])('refuses garbage %j', async (raw) => {
    await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
      ok: false,
      reason: 'url must be an absolute URL, such as https://example.com/webhooks.',
    });
  });

  it('refuses a url longer than 2048 characters', async () => {
    const raw = `https://hooks.example.com/${'a'.repeat(2048)}`;
    await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
      ok: false,
      reason: 'url must be at most 2048 characters long.',
    });
  });

  it.each([
    'https://user:secret@hooks.example.com/hook',
    'https://user@hooks.example.com/hook',
    'https://:secret@hooks.example.com/hook',
  ])('refuses credentials in %s', async (raw) => {
    await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
      ok: false,
      reason: 'url must not contain a username or password.',
    });
  });

  it.each(['https://hooks.example.com/hook#part', 'https://hooks.example.com/hook#'])(
    'refuses the fragment in %s',
    async (raw) => {
      await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
        ok: false,
        reason: 'url must not contain a fragment (#...).',
      });
    },
  );

  it.each([
    ['https://127.0.0.1/hook', 'a loopback address (127.0.0.1)'],
    ['https://[::1]/hook', 'a loopback address (::1)'],
    // WHATWG rewrites it to [::ffff:7f00:1], still recognised as loopback.
    ['https://[::ffff:127.0.0.1]/hook', 'a loopback address (::ffff:7f00:1)'],
    // Numeric spellings WHATWG normalizes to 127.0.0.1 before the address is checked.
    ['https://2130706433/hook', 'a loopback address (127.0.0.1)'],
    ['https://0x7f.1/hook', 'a loopback address (127.0.0.1)'],
    ['https://0177.0.0.1/hook', 'a loopback address (127.0.0.1)'],
    ['https://10.0.0.1/hook', 'a private address (10.0.0.1)'],
    ['https://0.0.0.0/hook', 'an unspecified address (0.0.0.0)'],
  ])('refuses the IP literal %s in production, naming it', async (raw, address) => {
    await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
      ok: false,
      reason: `url resolves to ${address}; ${PUBLIC_ONLY}`,
    });
  });

  it.each([
    'https://internal.example.com/hook',
    // One bad address among good ones is enough: the connection may pick any of them.
    'https://split-horizon.example.com/hook',
  ])('refuses the name in %s in production, never saying what it resolved to', async (raw) => {
    const { hostname } = new URL(raw);
    await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
      ok: false,
      reason: `url host ${hostname} resolves to a private or reserved address; ${PUBLIC_ONLY}`,
    });
  });

  it('refuses localhost in production, resolved through /etc/hosts, without the address', async () => {
    const check = await checkWebhookUrl('https://localhost/hook', PRODUCTION);
    expect(check).toEqual({
      ok: false,
      reason: `url host localhost resolves to a private or reserved address; ${PUBLIC_ONLY}`,
    });
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data/', 'a link-local address (169.254.169.254)'],
    ['http://169.254.169.254/latest/meta-data/', 'a link-local address (169.254.169.254)'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata address (fd00:ec2::254)'],
    ['https://[fe80::1]/hook', 'a link-local address (fe80::1)'],
    ['http://0.0.0.0:4000/hook', 'an unspecified address (0.0.0.0)'],
    ['http://[::]:4000/hook', 'an unspecified address (::)'],
  ])('refuses %s even with allowPrivate', async (raw, address) => {
    await expect(checkWebhookUrl(raw, DEVELOPMENT, resolver)).resolves.toEqual({
      ok: false,
      reason: `url resolves to ${address}; ${PRIVATE_TOO}`,
    });
  });

  it('refuses a name resolving to cloud metadata even with allowPrivate', async () => {
    await expect(
      checkWebhookUrl('https://metadata.example.com/hook', DEVELOPMENT, resolver),
    ).resolves.toEqual({
      ok: false,
      reason: `url host metadata.example.com resolves to a private or reserved address; ${PRIVATE_TOO}`,
    });
  });

  it.each(['https://nowhere.example.com/hook', 'https://broken.example.com/hook'])(
    'refuses %s whose host does not resolve to an address',
    async (raw) => {
      const { hostname } = new URL(raw);
      await expect(checkWebhookUrl(raw, PRODUCTION, resolver)).resolves.toEqual({
        ok: false,
        reason: `url host ${hostname} could not be resolved.`,
      });
    },
  );

  it('refuses a host the resolver answers with no address', async () => {
    await expect(
      checkWebhookUrl('https://empty.example.com/', PRODUCTION, async () => []),
    ).resolves.toEqual({ ok: false, reason: 'url host empty.example.com could not be resolved.' });
  });

  it('does not resolve IP literals', async () => {
    const resolve = jest.fn(resolver);
    await checkWebhookUrl('https://8.8.8.8/hook', PRODUCTION, resolve);
    await checkWebhookUrl('https://[::1]/hook', PRODUCTION, resolve);
    expect(resolve).not.toHaveBeenCalled();
  });
});

describe('ipLiteralHost', () => {
  it.each([
    ['https://8.8.8.8/', '8.8.8.8'],
    ['https://[2606:4700::1111]/', '2606:4700::1111'],
    ['https://2130706433/', '127.0.0.1'],
    ['https://hooks.example.com/', null],
    ['https://localhost/', null],
  ])('%s → %s', (raw, ip) => {
    expect(ipLiteralHost(new URL(raw))).toBe(ip);
  });
});

describe('boundedResolver', () => {
  /** A resolver whose lookups finish when the test says so. */
  function manualResolver() {
    const pending: Array<{ hostname: string; answer: (addresses: string[]) => void }> = [];
    const resolve: Resolver = (hostname) =>
      new Promise((answer) => pending.push({ hostname, answer }));
    return { resolve, pending };
  }

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs at most `concurrency` lookups at once, the others in turn', async () => {
    const { resolve, pending } = manualResolver();
    const bounded = boundedResolver(resolve, { concurrency: 2, timeoutMs: 5_000 });
    const answers = ['a.test', 'b.test', 'c.test'].map((host) => bounded(host));
    expect(pending.map((lookup) => lookup.hostname)).toEqual(['a.test', 'b.test']);
    pending[0].answer(['8.8.8.8']);
    await expect(answers[0]).resolves.toEqual(['8.8.8.8']);
    expect(pending.map((lookup) => lookup.hostname)).toEqual(['a.test', 'b.test', 'c.test']);
    pending[1].answer(['8.8.4.4']);
    pending[2].answer(['1.1.1.1']);
    await expect(Promise.all(answers.slice(1))).resolves.toEqual([['8.8.4.4'], ['1.1.1.1']]);
  });

  it('gives a lookup up after timeoutMs, and its turn only when getaddrinfo returns', async () => {
    const { resolve, pending } = manualResolver();
    const bounded = boundedResolver(resolve, { concurrency: 1, timeoutMs: 5_000 });
    const slow = bounded('slow.test');
    const queued = bounded('queued.test');
    const slowRefused = expect(slow).rejects.toMatchObject({ code: 'ETIMEOUT' });
    const queuedRefused = expect(queued).rejects.toMatchObject({ code: 'ETIMEOUT' });
    await jest.advanceTimersByTimeAsync(5_000);
    // Both refused, the waiting one too: the wait for a turn counts.
    await slowRefused;
    await queuedRefused;
    const later = bounded('later.test');
    // The slow lookup still holds its thread: nothing else starts until it returns.
    expect(pending.map((lookup) => lookup.hostname)).toEqual(['slow.test']);
    pending[0].answer(['8.8.8.8']);
    await jest.advanceTimersByTimeAsync(0);
    expect(pending.map((lookup) => lookup.hostname)).toEqual(['slow.test', 'later.test']);
    pending[1].answer(['1.1.1.1']);
    await expect(later).resolves.toEqual(['1.1.1.1']);
  });

  it('passes a failed lookup on', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const bounded = boundedResolver(failing, { concurrency: 1, timeoutMs: 5_000 });
    await expect(bounded('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(bounded('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
