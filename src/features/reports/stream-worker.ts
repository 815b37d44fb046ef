/**
 * Worker thread entry for streamAggregateOnWorker (./streamed-write.ts): reads the one report
 * it is sent and hands its head and record batches back as they are parsed.
 */
import { serveStream, type StreamMessage, type StreamRequest } from "./streamed-write";

declare const self: Worker;

const serve = serveStream((message: StreamMessage) => self.postMessage(message));
self.onmessage = (event: MessageEvent<StreamRequest>) => serve(event.data);
