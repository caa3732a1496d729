// @vitest-environment jsdom
/**
 * The console's token: the local secret from the link `tfrobot serve` prints (`/#token=…`) is kept for
 * the tab and taken out of the address bar; a typed token replaces it; every API call sends it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { adoptLinkToken, getToken, send, setToken } from "../src/api/client";

afterEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  window.history.replaceState(null, "", "/");
  vi.unstubAllGlobals();
});

describe("the link's token", () => {
  it("is kept for this tab and removed from the URL", () => {
    window.history.replaceState(null, "", "/#token=s3cr%2Fet-0123456789");
    adoptLinkToken();
    expect(sessionStorage.getItem("tfrobot.token")).toBe("s3cr/et-0123456789");
    expect(localStorage.getItem("tfrobot.token")).toBeNull();
    expect(window.location.hash).toBe("#/");
    expect(window.location.href).not.toContain("s3cr");
    expect(getToken()).toBe("s3cr/et-0123456789");
  });

  it("leaves a route and a typed token alone", () => {
    setToken("typed-token");
    window.history.replaceState(null, "", "/#/r/demo/chat");
    adoptLinkToken();
    expect(window.location.hash).toBe("#/r/demo/chat");
    expect(getToken()).toBe("typed-token");
  });

  it("gives way to a token typed afterwards", () => {
    window.history.replaceState(null, "", "/#token=from-the-link-0123");
    adoptLinkToken();
    setToken("typed-token");
    expect(getToken()).toBe("typed-token");
    expect(sessionStorage.getItem("tfrobot.token")).toBeNull();
  });

  it("is sent as a bearer token with a JSON content type", async () => {
    window.history.replaceState(null, "", "/#token=from-the-link-0123");
    adoptLinkToken();
    const seen: Headers[] = [];
    vi.stubGlobal("fetch", async (_path: string, init: RequestInit) => {
      seen.push(new Headers(init.headers));
      return new Response("{}", { headers: { "Content-Type": "application/json" } });
    });
    await send("/api/robots/demo/chat", { method: "POST", body: "{}" });
    expect(seen[0]?.get("Authorization")).toBe("Bearer from-the-link-0123");
    expect(seen[0]?.get("Content-Type")).toBe("application/json");
  });
});
