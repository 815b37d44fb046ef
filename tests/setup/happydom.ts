// Loaded only for UI tests (happy-dom replaces fetch/Request/Response globally).
import { GlobalRegistrator } from "@happy-dom/global-registrator";

GlobalRegistrator.register({ url: "http://localhost:8080/" });
