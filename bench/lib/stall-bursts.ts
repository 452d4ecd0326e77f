/**
 * The contents and bodies of issue 31's M1 and M2 reproductions, as bench/stall.ts and bench/rss-probe.ts send them: one
 * definition, so that the two measure the same requests.
 */

/** A multipart/form-data body of one file part. */
export function multipart(filename: string, text: string): { body: Buffer; type: string } {
  const boundary = `----stall${Date.now()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), Buffer.from(text), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** M1's upload: 5,200,000 characters of Markdown ('![' × 2,600,000), to POST /reference-materials. */
export function m1Upload(): { body: Buffer; type: string } {
  return multipart("m1.md", "![".repeat(2_600_000));
}

/** M2's MCP body: a batch of 8 list_contents calls of 100 contents each, to POST /api/v1/mcp. */
export function mcpListBatch(): string {
  return JSON.stringify(
    Array.from({ length: 8 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "list_contents", arguments: { limit: 100 } },
    })),
  );
}

/** Text of `chars` characters, a third of them multi-byte (as a page of contents in another script would be). */
export function longText(chars: number, seed: number): string {
  const words = ["planning", "quarter", "team", "report", "—", "“quoted”", "naïve", "résumé", "office"];
  let text = `Content ${seed}. `;
  for (let i = 0; text.length < chars; i++) text += `${words[(i * 7 + seed) % words.length]} `;
  return text.slice(0, chars);
}
