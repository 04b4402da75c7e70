// Whether a host port is free (the adapter: daemon/proxy/host-port-probe.ts listens on it for an instant).

export type PortProbe = (port: number) => Promise<boolean>;
