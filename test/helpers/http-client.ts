/** Requests to a real server over node:http, for the checks that fetch() cannot make: a body sent in parts, an agent. */
import http from "node:http";

/** A response read to its end. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Opens a request whose body the caller writes and ends, and reads its response to the end. */
export function openRequest(
  url: string,
  options: http.RequestOptions = {},
): { req: http.ClientRequest; answer: Promise<HttpAnswer> } {
  const req = http.request(url, options);
  const answer = new Promise<HttpAnswer>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
  });
  return { req, answer };
}

/**
 * POSTs a JSON body in two parts: its first `firstPart` characters, then the rest once `meanwhile` is done (what the
 * test is about happens there, while the body is still arriving); resolves with the answer.
 */
export async function postInParts(
  url: string,
  opts: {
    body: string;
    firstPart: number;
    meanwhile: () => Promise<void>;
    headers?: http.OutgoingHttpHeaders;
    agent?: http.Agent;
  },
): Promise<HttpAnswer> {
  const { body, firstPart } = opts;
  const { req, answer } = openRequest(url, {
    method: "POST",
    agent: opts.agent,
    headers: { ...opts.headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
  });
  req.write(body.slice(0, firstPart));
  const rest = opts.meanwhile().then(
    () => {
      req.end(body.slice(firstPart));
    },
    (error) => {
      req.destroy();
      throw error;
    },
  );
  const [res] = await Promise.all([answer, rest]);
  return res;
}
