// The injected transport and the small hooks views use on top of TanStack Query.
import { createContext, useContext, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import type { Method, Transport } from '../transport/transport';
import { useNotify } from '../ui/notify';
import { errorMessage } from '../transport/transport';

const TransportContext = createContext<Transport | null>(null);

export function TransportProvider({ transport, children }: { transport: Transport; children: ReactNode }) {
  return <TransportContext.Provider value={transport}>{children}</TransportContext.Provider>;
}

export function useTransport(): Transport {
  const t = useContext(TransportContext);
  if (!t) throw new Error('no transport');
  return t;
}

/** GET `path` under `key`; a null path waits. */
export function useGet<T>(key: QueryKey, path: string | null, opts: Partial<UseQueryOptions<T>> = {}) {
  const t = useTransport();
  return useQuery<T>({ queryKey: key, queryFn: () => t.request<T>('GET', path!), enabled: path !== null, ...opts });
}

interface ActionOptions<R> {
  /** Query keys to refetch after success. */
  invalidate?: QueryKey[];
  /** Shown on success (a string or built from the answer). */
  success?: string | ((r: R) => string | null);
  onSuccess?: (r: R) => void;
  /** False where the form shows the refusal beside itself (no toast repeating it). Default true. */
  notifyErrors?: boolean;
}

/** A write: method + path + body, with the outcome announced and queries refreshed. */
export function useAction<B = unknown, R = unknown>(method: Method, path: string | ((b: B) => string), opts: ActionOptions<R> = {}) {
  const t = useTransport();
  const qc = useQueryClient();
  const notify = useNotify();
  return useMutation<R, Error, B>({
    mutationFn: (body: B) => t.request<R>(method, typeof path === 'function' ? path(body) : path, method === 'GET' ? undefined : ((body as unknown) ?? undefined)),
    onSuccess: (r) => {
      for (const k of opts.invalidate ?? []) void qc.invalidateQueries({ queryKey: k });
      const msg = typeof opts.success === 'function' ? opts.success(r) : opts.success;
      if (msg) notify.ok(msg);
      opts.onSuccess?.(r);
    },
    onError: (err) => {
      if (opts.notifyErrors !== false) notify.error(errorMessage(err));
    },
  });
}
