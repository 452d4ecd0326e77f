/** The dashboard's entry: renders the app into the page's one element. */
import { render } from "preact";
import { App } from "./app.js";

const root = document.getElementById("app");
if (root) render(<App />, root);
