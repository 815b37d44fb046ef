/**
 * Worker thread entry for parseInBackground (./parallel.ts): parses each file it is sent and
 * answers with the reports as one JSON string (cheaper to pass between threads than a cloned
 * object graph) or with why the file was refused.
 */
import { ReportRefusedError, type ReportLimits } from "./model";
import { parseReportFile } from "./parse";

export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  limits: ReportLimits;
}

export type ParseAnswer = { id: number; json: string } | { id: number; refused: { message: string; code: ReportRefusedError["code"] } } | { id: number; crashed: string };

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ParseRequest>) => {
  const { id, bytes, limits } = event.data;
  let answer: ParseAnswer;
  try {
    answer = { id, json: JSON.stringify(await parseReportFile(bytes, limits)) };
  } catch (error) {
    answer = error instanceof ReportRefusedError ? { id, refused: { message: error.message, code: error.code } } : { id, crashed: String((error as Error)?.stack ?? error) };
  }
  self.postMessage(answer);
};
