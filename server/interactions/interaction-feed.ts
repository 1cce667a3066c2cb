// The live feed of an owner's interactions (GET /emulator/interactions?stream=true): a summary each time
// one is created, finishes a step or changes status, and a note when one is deleted. It is what makes
// the dashboard's list live. Only the owner's own interactions reach its listeners, and only stored ones
// (a store: false interaction is invisible to get, so to the list too).

import type { InteractionSummary } from "./interaction-summary.js";

export type FeedEvent =
  | { event_type: "interaction.summary"; interaction: InteractionSummary }
  | { event_type: "interaction.deleted"; interaction_id: string };

export type FeedListener = (event: FeedEvent) => void;

export class InteractionFeed {
  private readonly listeners = new Map<string, Set<FeedListener>>();

  /** Calls `listener` with every later event of `owner`'s interactions; returns the unsubscribe. */
  subscribe(owner: string, listener: FeedListener): () => void {
    let ofOwner = this.listeners.get(owner);
    if (!ofOwner) {
      ofOwner = new Set();
      this.listeners.set(owner, ofOwner);
    }
    ofOwner.add(listener);
    return () => {
      ofOwner.delete(listener);
      if (ofOwner.size === 0 && this.listeners.get(owner) === ofOwner) this.listeners.delete(owner);
    };
  }

  hasListeners(owner: string): boolean {
    return this.listeners.has(owner);
  }

  /** A listener that throws (its connection broke) is dropped; the others and the run go on. */
  publish(owner: string, event: FeedEvent): void {
    const ofOwner = this.listeners.get(owner);
    if (!ofOwner) return;
    for (const listener of [...ofOwner]) {
      try {
        listener(event);
      } catch {
        ofOwner.delete(listener);
      }
    }
    if (ofOwner.size === 0 && this.listeners.get(owner) === ofOwner) this.listeners.delete(owner);
  }
}
