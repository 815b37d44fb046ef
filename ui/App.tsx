import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { LazyToaster } from "./components/LazyToaster";
import { TooltipProvider } from "./components/TooltipProvider";
import { queryClient as defaultClient } from "./lib/queryClient";
import { RouteTitle } from "./lib/title";
import { AppRoutes } from "./routes";

/** Providers shared by the app and by component tests. */
export function Providers({ children, client = defaultClient }: { children: ReactNode; client?: QueryClient }) {
  return (
    <QueryClientProvider client={client}>
      <TooltipProvider>
        {children}
        <LazyToaster />
      </TooltipProvider>
    </QueryClientProvider>
  );
}

export function App({ client }: { client?: QueryClient }) {
  return (
    <Providers client={client}>
      <RouteTitle />
      <AppRoutes />
    </Providers>
  );
}
