import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { keepInView } from "./anchor";

// happy-dom lays nothing out, so the page "growing" is played by calling the observer's callback,
// as a browser does when a late part above the section changes the page's size
let grow: (() => void)[] = [];
const realObserver = globalThis.ResizeObserver;
beforeEach(() => {
  grow = [];
  globalThis.ResizeObserver = class {
    private live = true;
    constructor(callback: ResizeObserverCallback) {
      grow.push(() => this.live && callback([], this as unknown as ResizeObserver));
    }
    observe() {}
    unobserve() {}
    disconnect() {
      this.live = false;
    }
  } as unknown as typeof ResizeObserver;
});
afterEach(() => {
  globalThis.ResizeObserver = realObserver;
});

function section() {
  const el = document.createElement("section");
  document.body.append(el);
  const calls: ScrollIntoViewOptions[] = [];
  el.scrollIntoView = ((options: ScrollIntoViewOptions) => calls.push(options)) as typeof el.scrollIntoView;
  return { el, calls };
}

describe("keepInView", () => {
  test("brings the section to the top at once and again each time the page above it grows", () => {
    const { el, calls } = section();
    const stop = keepInView(el);
    expect(calls).toEqual([{ block: "start" }]);
    grow.forEach((g) => g());
    grow.forEach((g) => g());
    expect(calls.length).toBe(3);
    stop();
  });

  test("stops following at the reader's first move, so their own scrolling is never undone", () => {
    const { el, calls } = section();
    keepInView(el);
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    grow.forEach((g) => g());
    expect(calls.length).toBe(1);
  });

  test("stops following once the time is up", async () => {
    const { el, calls } = section();
    keepInView(el, 10);
    await Bun.sleep(30);
    grow.forEach((g) => g());
    expect(calls.length).toBe(1);
  });

  test("a missing section is no error", () => {
    expect(() => keepInView(null)()).not.toThrow();
  });
});
