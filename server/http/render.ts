export { renderInteraction } from "../interactions/interaction-view.js";
