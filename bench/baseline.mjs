// The benchmark's baseline: a bare node:http server answering a fixed JSON body (argv: port, body file).
// Plain JavaScript so that any Node binary can run it (the bench prefers the one the executable embeds).
import { readFileSync } from "node:fs";
import http from "node:http";

const [port, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(Number(port), "127.0.0.1", () => process.stdout.write(`listening ${process.version}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
