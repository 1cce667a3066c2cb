// An environment's files (GET /{v}/environments/{env}/files/{path}): a folder at a time, a breadcrumb
// back up through the folders of its path (written from the sandbox's root, as the files API lists
// them: workspace / src), and a download for each file (fetched with the key, then saved).

import { useEffect, useState } from "preact/hooks";
import { downloadFile, encodePath, getJson, V } from "../api.js";
import { formatBytes, formatTime } from "../format.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";
import { ErrorBox, Loading } from "./bits.js";

export function FileBrowser({ environmentId, path }) {
  const [state, setState] = useState({ files: null, next: "", error: null });
  const [downloadError, setDownloadError] = useState(null);

  useEffect(() => {
    const controller = new AbortController();
    setState({ files: null, next: "", error: null });
    getJson(listUrl(environmentId, path), controller.signal)
      .then((page) => setState({ files: page.files, next: page.next_page_token, error: null }))
      .catch((error) => !controller.signal.aborted && setState({ files: [], next: "", error }));
    return () => controller.abort();
  }, [environmentId, path]);

  const more = async () => {
    try {
      const page = await getJson(listUrl(environmentId, path, state.next));
      setState((old) => ({ files: [...old.files, ...page.files], next: page.next_page_token, error: null }));
    } catch (error) {
      setState((old) => ({ ...old, error }));
    }
  };
  const download = async (file) => {
    setDownloadError(null);
    try {
      await downloadFile(environmentId, file.path, file.name);
    } catch (error) {
      setDownloadError(error);
    }
  };

  return html`<div class="file-browser">
    <${Breadcrumb} environmentId=${environmentId} path=${path} />
    <${ErrorBox} error=${state.error} />
    <${ErrorBox} error=${downloadError} />
    ${state.files === null ? html`<${Loading} what="Listing" />` : null}
    ${
      state.files && state.files.length === 0 && !state.error
        ? html`<p class="muted">This folder is empty.</p>`
        : state.files?.length > 0
          ? html`<table class="table files">
              <thead><tr><th>Name</th><th class="num">Size</th><th>Modified</th><th></th></tr></thead>
              <tbody>
                ${state.files.map(
                  (file) => html`<tr data-path=${file.path}>
                    <td class="mono">
                      ${
                        file.type === "directory"
                          ? html`<${Link} href=${links.environment(environmentId, file.path)}>${file.name}/<//>`
                          : html`<span>${file.name}</span>${file.type !== "file" ? html` <span class="muted">(${file.type})</span>` : null}`
                      }
                    </td>
                    <td class="num">${file.type === "file" ? formatBytes(file.size_bytes) : ""}</td>
                    <td>${formatTime(file.modified)}</td>
                    <td>${file.type === "file" ? html`<button type="button" class="small" onClick=${() => download(file)}>Download</button>` : null}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`
          : null
    }
    ${state.next ? html`<button type="button" onClick=${more}>More files</button>` : null}
  </div>`;
}

function Breadcrumb({ environmentId, path }) {
  const parts = path.split("/").filter(Boolean);
  return html`<nav class="breadcrumb" aria-label="folder">
    ${parts.map((part, index) => {
      const to = parts.slice(0, index + 1).join("/");
      return html`${index > 0 ? " / " : ""}${index === parts.length - 1 ? html`<strong>${part}</strong>` : html`<${Link} href=${links.environment(environmentId, to)}>${part}<//>`}`;
    })}
  </nav>`;
}

function listUrl(environmentId, path, pageToken = "") {
  const query = new URLSearchParams({ page_size: "200" });
  if (pageToken) query.set("page_token", pageToken);
  return `${V}/environments/${encodeURIComponent(environmentId)}/files/${encodePath(path)}?${query}`;
}
