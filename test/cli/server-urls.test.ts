/** The description's default servers for serve's --host and --port, when no --public-url/--staging-url is given. */
import { describe, expect, it } from "vitest";
import { defaultServerUrls } from "../../src/cli/server-urls.js";

describe("defaultServerUrls", () => {
  it.each([
    ["127.0.0.1", "http://127.0.0.1:81", "http://staging.localhost:81"],
    ["localhost", "http://localhost:81", "http://staging.localhost:81"],
    ["api.example.test", "http://api.example.test:81", "http://staging.api.example.test:81"],
    // Every interface is no address for a client: the loopback.
    ["0.0.0.0", "http://127.0.0.1:81", "http://staging.localhost:81"],
    ["0", "http://127.0.0.1:81", "http://staging.localhost:81"],
    ["::", "http://[::1]:81", "http://[::1]:81"],
    // An IP address has no staging.<name>: this server is both.
    ["10.1.2.3", "http://10.1.2.3:81", "http://10.1.2.3:81"],
    ["::1", "http://[::1]:81", "http://[::1]:81"],
  ])("%s", (host, publicUrl, stagingUrl) => {
    expect(defaultServerUrls(host, 81)).toEqual({ publicUrl, stagingUrl });
  });
});
