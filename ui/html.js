// Tagged-template markup for Preact (htm): no JSX, so no build step. Every value interpolated into it
// becomes a text node or a property, never HTML, so nothing the API returns can become markup.
import { h } from "preact";
import htm from "htm";

export const html = htm.bind(h);
