import { errorMessage } from "../lib/api";

/** The loading line of a list card while its query runs. */
export function LoadingState({ text }: { text: string }) {
  return (
    <p className="p-8 text-center opacity-70" role="status">
      {text}
    </p>
  );
}

/** SPEC §8's generic error card: "Something went wrong" with the reason and Try Again. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div className="p-8 text-center" role="alert">
      <p className="font-medium text-error">Something went wrong</p>
      <p className="mt-1 text-sm opacity-70">{errorMessage(error)}</p>
      <button type="button" className="btn btn-sm btn-outline mt-3" onClick={onRetry}>
        Try Again
      </button>
    </div>
  );
}
