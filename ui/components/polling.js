// Reading something again every few seconds while the page is visible (a hidden tab waits, and reads
// as soon as it is shown again), stopped when the component goes away or its inputs change.

import { useEffect } from "preact/hooks";

/**
 * Runs `load(signal)` now and then every `everyMs` while it answers true (read again) and the page is
 * visible; `signal` aborts when the component unmounts or `inputs` change.
 */
export function useVisiblePolling(load, inputs, everyMs = 3000) {
  useEffect(() => {
    const controller = new AbortController();
    let timer = null;
    const once = async () => {
      const again = await load(controller.signal);
      if (again && !controller.signal.aborted) timer = setTimeout(refresh, everyMs);
    };
    const refresh = () => {
      if (document.visibilityState === "visible") void once();
      else timer = setTimeout(refresh, everyMs);
    };
    void once();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, inputs);
}
