import { addressRefusal, AddressPolicy, refusedAddressKind } from './address-policy';

const PRODUCTION: AddressPolicy = { allowPrivate: false };
const DEVELOPMENT: AddressPolicy = { allowPrivate: true };

// [ip, reason in production, reason with allowPrivate] — null means the connection is allowed.
const CASES: [string, string | null, string | null][] = [
  ['8.8.8.8', null, null],
  ['1.1.1.1', null, null],
  ['93.184.216.34', null, null],
  ['2606:4700:4700::1111', null, null],
  ['2a00:1450:4001:82b::200e', null, null],
  ['127.0.0.1', 'loopback address 127.0.0.1', null],
  ['127.8.9.10', 'loopback address 127.8.9.10', null],
  ['::1', 'loopback address ::1', null],
  ['::ffff:127.0.0.1', 'loopback address ::ffff:127.0.0.1', null],
  ['::ffff:7f00:1', 'loopback address ::ffff:7f00:1', null],
  ['10.0.0.1', 'private address 10.0.0.1', null],
  ['172.16.5.4', 'private address 172.16.5.4', null],
  ['172.31.255.255', 'private address 172.31.255.255', null],
  ['192.168.1.1', 'private address 192.168.1.1', null],
  ['::ffff:10.1.2.3', 'private address ::ffff:10.1.2.3', null],
  ['fd12:3456::1', 'unique local address fd12:3456::1', null],
  ['100.64.0.1', 'carrier-grade NAT address 100.64.0.1', null],
  ['169.254.169.254', 'link-local address 169.254.169.254', 'link-local address 169.254.169.254'],
  [
    '::ffff:169.254.169.254',
    'link-local address ::ffff:169.254.169.254',
    'link-local address ::ffff:169.254.169.254',
  ],
  [
    '::ffff:a9fe:a9fe',
    'link-local address ::ffff:a9fe:a9fe',
    'link-local address ::ffff:a9fe:a9fe',
  ],
  ['fe80::1', 'link-local address fe80::1', 'link-local address fe80::1'],
  ['fe80::1%eth0', 'link-local address fe80::1%eth0', 'link-local address fe80::1%eth0'],
  ['fd00:ec2::254', 'cloud metadata address fd00:ec2::254', 'cloud metadata address fd00:ec2::254'],
  [
    'fd00:ec2:0:0:0:0:0:254%eth0',
    'cloud metadata address fd00:ec2:0:0:0:0:0:254%eth0',
    'cloud metadata address fd00:ec2:0:0:0:0:0:254%eth0',
  ],
  [
    '100.100.100.200',
    'cloud metadata address 100.100.100.200',
    'cloud metadata address 100.100.100.200',
  ],
  ['0.0.0.0', 'unspecified address 0.0.0.0', 'unspecified address 0.0.0.0'],
  ['0.1.2.3', 'unspecified address 0.1.2.3', 'unspecified address 0.1.2.3'],
  ['::', 'unspecified address ::', 'unspecified address ::'],
  ['255.255.255.255', 'broadcast address 255.255.255.255', 'broadcast address 255.255.255.255'],
  ['224.0.0.1', 'multicast address 224.0.0.1', 'multicast address 224.0.0.1'],
  ['ff02::1', 'multicast address ff02::1', 'multicast address ff02::1'],
  ['192.0.2.10', 'reserved address 192.0.2.10', 'reserved address 192.0.2.10'],
  ['198.18.0.1', 'reserved address 198.18.0.1', 'reserved address 198.18.0.1'],
  ['240.0.0.1', 'reserved address 240.0.0.1', 'reserved address 240.0.0.1'],
  ['2001:db8::1', 'reserved address 2001:db8::1', 'reserved address 2001:db8::1'],
  ['2001:2::1', 'benchmarking address 2001:2::1', 'benchmarking address 2001:2::1'],
  // Addresses that embed an IPv4 address a gateway would forward to: never trusted.
  ['64:ff9b::a9fe:a9fe', 'NAT64 address 64:ff9b::a9fe:a9fe', 'NAT64 address 64:ff9b::a9fe:a9fe'],
  ['64:ff9b::7f00:1', 'NAT64 address 64:ff9b::7f00:1', 'NAT64 address 64:ff9b::7f00:1'],
  ['2002:7f00:1::1', '6to4 address 2002:7f00:1::1', '6to4 address 2002:7f00:1::1'],
  [
    '2001:0:4136:e378::1',
    'Teredo address 2001:0:4136:e378::1',
    'Teredo address 2001:0:4136:e378::1',
  ],
  ['::7f00:1', 'non-global IPv6 address ::7f00:1', 'non-global IPv6 address ::7f00:1'],
  // ipaddr.js reads the deprecated dotted IPv4-compatible form as IPv4-mapped: loopback either way.
  ['::127.0.0.1', 'loopback address ::127.0.0.1', null],
  [
    '100::1',
    'special-purpose address (discard) 100::1',
    'special-purpose address (discard) 100::1',
  ],
];

describe('addressRefusal', () => {
  it.each(CASES)('%s in production: %s', (ip, production) => {
    expect(addressRefusal(ip, PRODUCTION)).toBe(production);
  });

  it.each(CASES)('%s with allowPrivate: %#', (ip, _production, development) => {
    expect(addressRefusal(ip, DEVELOPMENT)).toBe(development);
  });

  it.each([
    'localhost',
    'example.com',
    '',
    '256.0.0.1',
    '1.2.3',
    // Shorthand forms some parsers (inet_aton, ipaddr.js) read as 127.0.0.1: refused as text, since
    // only the canonical form is checked and connected to.
    '2130706433',
    '0x7f.1',
    '0177.0.0.1',
    '127.1',
    '[::1]',
    ' 127.0.0.1',
  ])('refuses %j as not an IP address under both policies', (text) => {
    expect(addressRefusal(text, PRODUCTION)).toBe('not an IP address');
    expect(addressRefusal(text, DEVELOPMENT)).toBe('not an IP address');
  });
});

describe('refusedAddressKind', () => {
  it('phrases the kind with its article, for sentences about a url', () => {
    expect(refusedAddressKind('127.0.0.1', PRODUCTION)).toBe('a loopback address');
    expect(refusedAddressKind('::', PRODUCTION)).toBe('an unspecified address');
    expect(refusedAddressKind('8.8.8.8', PRODUCTION)).toBeNull();
  });
});
