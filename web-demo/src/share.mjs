// Shareable links: the history compressed with CompressionStream('deflate-raw'), base64url, and
// the chosen levels, in the URL fragment (`#levels=SER,SI&h=...`), which is never sent to a server.

/** Longest fragment we put in a link (Chromium accepts URLs up to 2 MB). */
export const MAX_FRAGMENT = 1_500_000;

async function pipe(bytes, transform) {
    const stream = new Blob([bytes]).stream().pipeThrough(transform);
    return new Uint8Array(await new Response(stream).arrayBuffer());
}

export function base64url(bytes) {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
        s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(s) {
    const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
}

/** The fragment (without '#') for a history and levels. */
export async function encodeShare(text, levels) {
    const packed = await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw'));
    const params = [];
    if (levels && levels.length) params.push(`levels=${levels.map(encodeURIComponent).join(',')}`);
    params.push(`h=${base64url(packed)}`);
    return params.join('&');
}

/** `{text, levels}` from a fragment (with or without '#'), or null when it holds no history. */
export async function decodeShare(fragment) {
    const params = new URLSearchParams(fragment.replace(/^#/, ''));
    const h = params.get('h');
    if (!h) return null;
    const bytes = await pipe(fromBase64url(h), new DecompressionStream('deflate-raw'));
    const levels = (params.get('levels') ?? '').split(',').filter(Boolean);
    return { text: new TextDecoder().decode(bytes), levels };
}

/** Text of a file's bytes, unpacking gzip (by its magic number) with DecompressionStream. */
export async function fileText(bytes) {
    const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
    const raw = gzip ? await pipe(bytes, new DecompressionStream('gzip')) : bytes;
    return { text: new TextDecoder().decode(raw), gzip };
}
