// The owner's interactions, newest first, kept live: GET /emulator/interactions for the first page (and
// more on request), and its ?stream=true feed for every change after that, so an interaction appears
// the moment it is created and its row follows it to its end, without reloading. The feed is opened
// first and the list read once it is open, so no change falls between the two; after a break the feed
// is reopened and the list read again.

import { useEffect, useRef, useState } from "preact/hooks";
import { getJson, readEventStream } from "../api.js";

const PAGE_SIZE = 50;
const RETRY_MS = [500, 1000, 2000, 5000];

/** `filter`: {status?, agent?, environment_id?}, as the list endpoint takes them. */
export function useLiveInteractions(filter) {
  const [state, setState] = useState({ items: [], nextPageToken: "", loading: true, error: null, live: false });
  const items = useRef([]);
  const filterKey = JSON.stringify(filter);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let nextPageToken = "";
    const publish = (extra = {}) => !signal.aborted && setState((old) => ({ ...old, items: items.current, nextPageToken, ...extra }));

    const apply = (event) => {
      if (event.event_type === "interaction.deleted") {
        items.current = items.current.filter((item) => item.id !== event.interaction_id);
      } else if (event.event_type === "interaction.summary") {
        items.current = upsert(items.current, event.interaction, matches(event.interaction, filter));
      }
      publish();
    };

    const connect = async (attempt) => {
      // One connection's own signal, so a failed attempt's feed is closed before the next one opens.
      const connection = new AbortController();
      const closeConnection = () => connection.abort();
      signal.addEventListener("abort", closeConnection);
      let listed = false;
      const early = [];
      let opened;
      const open = new Promise((resolve) => {
        opened = resolve;
      });
      const feed = readEventStream("/emulator/interactions?stream=true", {
        signal: connection.signal,
        onOpen: opened,
        onEvent: (event) => (listed ? apply(event) : early.push(event)),
      });
      feed.catch(() => undefined);
      try {
        await Promise.race([open, feed]);
        const page = await getJson(listUrl(filter), connection.signal);
        items.current = page.interactions;
        nextPageToken = page.next_page_token;
        listed = true;
        for (const event of early) apply(event);
        publish({ loading: false, error: null, live: true });
        attempt = 0;
        await feed;
      } catch (error) {
        if (!signal.aborted) publish({ loading: false, error, live: false });
      } finally {
        closeConnection();
        signal.removeEventListener("abort", closeConnection);
      }
      if (signal.aborted) return;
      publish({ live: false });
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
      if (!signal.aborted) void connect(attempt + 1);
    };

    items.current = [];
    setState({ items: [], nextPageToken: "", loading: true, error: null, live: false });
    void connect(0);
    return () => controller.abort();
  }, [filterKey]);

  const loadMore = async () => {
    if (!state.nextPageToken) return;
    try {
      const page = await getJson(listUrl(filter, state.nextPageToken));
      const known = new Set(items.current.map((item) => item.id));
      items.current = [...items.current, ...page.interactions.filter((item) => !known.has(item.id))];
      setState((old) => ({ ...old, items: items.current, nextPageToken: page.next_page_token }));
    } catch (error) {
      setState((old) => ({ ...old, error }));
    }
  };

  return { ...state, loadMore };
}

function listUrl(filter, pageToken = "") {
  const query = new URLSearchParams({ page_size: String(PAGE_SIZE) });
  for (const [name, value] of Object.entries(filter)) if (value) query.set(name, value);
  if (pageToken) query.set("page_token", pageToken);
  return `/emulator/interactions?${query}`;
}

function matches(summary, filter) {
  if (filter.status && summary.status !== filter.status) return false;
  if (filter.agent && summary.agent !== filter.agent && summary.model !== filter.agent) return false;
  if (filter.environment_id && summary.environment_id !== filter.environment_id) return false;
  return true;
}

/** The list with `summary` in its place (a new one by its creation time, newest first), or without it. */
function upsert(list, summary, keep) {
  const index = list.findIndex((item) => item.id === summary.id);
  if (index !== -1) {
    if (!keep) return list.filter((item) => item.id !== summary.id);
    const copy = [...list];
    copy[index] = summary;
    return copy;
  }
  if (!keep) return list;
  const at = list.findIndex((item) => item.created <= summary.created);
  return at === -1 ? [...list, summary] : [...list.slice(0, at), summary, ...list.slice(at)];
}
