// Egress streams ride the executor channel: each TCP connection a sandbox program makes to the
// executor's egress listener becomes a stream of `egress` frames, numbered by the executor and
// independent of request ids, with credit-based flow control per stream and direction.
//
// Lifecycle of stream N (N > 0, strictly increasing per executor, never reused):
//   executor → server  open {identity?}           a sandbox program connected (as whom, when the hooks user)
//   both ways          data (body = bytes)        at most the window unacknowledged, see below
//   both ways          ack {bytes}                the receiver consumed `bytes`: the sender may send that many more
//   both ways          end                        half-close: the sender sends no more data
//   both ways          close {error?}             the sender is done with the stream; the receiver drops it and
//                                                 never answers a close. An abort (the executor resets the
//                                                 program's socket), except from the server after its own end
//                                                 and without an error: then the executor still delivers what
//                                                 the server wrote and closes the socket normally, as close()
//                                                 after shutdown(SHUT_WR) would
// A stream whose both ends were exchanged is complete; a close may still follow and means nothing more.
// Frames for streams a side does not know (already closed, never opened) are ignored: both sides may
// close at the same moment, so late frames are normal.
//
// Flow control: each direction of each stream has a window of EGRESS_WINDOW_BYTES. A sender keeps
// (bytes sent − bytes acknowledged) within the window; a receiver acknowledges bytes only once they left
// its hands (written to the socket, handed to the reader), so neither side ever holds more than one
// window per stream and direction. Sending more than the window allows is a violation that closes the
// stream.

import { checkField, isPlainObject, type Checked } from "./protocol-check.js";
import { IDENTITY_NAMES } from "./protocol-constants.js";
import * as field from "./protocol-fields.js";
import type { TypeOf } from "./protocol-fields.js";

export const egressStreamError = field.object({
  /** errno-style, e.g. ECONNRESET, EPIPE, EPROTO (a flow-control or protocol violation). */
  code: field.text,
  message: field.text,
});

export const egressFrame = field.taggedUnion(
  "egress",
  {
    /**
     * `identity: "hooks"` when the connection's socket belongs to the hooks user (the kernel's record of
     * who made it): such streams are counted against EGRESS_MAX_HOOK_STREAMS, all others against
     * EGRESS_MAX_STREAMS. Absent: not the hooks user's (or an executor without identities).
     */
    open: field.object({ identity: field.optional(field.oneOf(...IDENTITY_NAMES)) }),
    data: field.object({}),
    ack: field.object({ bytes: field.positiveInteger }),
    end: field.object({}),
    close: field.object({ error: field.optional(egressStreamError) }),
  },
  { common: { stream: field.positiveInteger }, label: (kind) => `egress ${kind}` },
);

export type EgressStreamErrorInfo = TypeOf<typeof egressStreamError>;
export type EgressFrame = TypeOf<typeof egressFrame>;

/** Egress frames are told apart from requests (`op`) and responses (`type`) by their `egress` field. */
export function isEgressFrameHeader(header: unknown): boolean {
  return isPlainObject(header) && "egress" in header;
}

/** The frame the header holds, or what is wrong with it. Both sides run it on what they receive. */
export function checkEgressFrame(header: unknown): Checked<EgressFrame> {
  return checkField(egressFrame, header, "egress frame");
}

/** The frame, if the header has exactly the shape above; null otherwise. */
export function parseEgressFrame(header: unknown): EgressFrame | null {
  const checked = checkEgressFrame(header);
  return checked.ok ? checked.value : null;
}
