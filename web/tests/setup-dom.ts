import { configure } from "@testing-library/dom";

// findBy*/waitFor give up after 1 s by default; on a loaded CI machine a render can take longer.
configure({ asyncUtilTimeout: 10_000 });

// What Mantine expects from a browser and jsdom lacks.
if (typeof window !== "undefined") {
  window.matchMedia ??= (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
  class RO {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  }
  (globalThis as Record<string, unknown>).ResizeObserver ??= RO;
  Element.prototype.scrollIntoView ??= () => undefined;
  if (!("fonts" in document)) {
    Object.defineProperty(document, "fonts", {
      value: { addEventListener: () => undefined, removeEventListener: () => undefined },
    });
  }
}
