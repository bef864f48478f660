/**
 * The target of `rel="next"` in an RFC 8288 `Link` header (`<url>; rel="next", <url>; rel="first"`),
 * or null when there is no next page.
 */
export function parseNextLink(header: string | null): string | null {
  if (!header) return null;
  for (const link of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(link);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2]);
    const relation = rels?.[1] ?? rels?.[2] ?? '';
    if (relation.toLowerCase().split(/\s+/).includes('next')) return match[1];
  }
  return null;
}
