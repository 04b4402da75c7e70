// A container's memory (swap included: no swap beyond it), CPU and PID limits as the Engine's
// HostConfig fields, for every container Berth creates with a service's limits.
export function resourceLimits(limits: { memoryMb: number; cpus: number; pids: number }): { Memory: number; MemorySwap: number; NanoCpus: number; PidsLimit: number } {
  const bytes = limits.memoryMb * 1024 * 1024;
  return { Memory: bytes, MemorySwap: bytes, NanoCpus: Math.round(limits.cpus * 1e9), PidsLimit: limits.pids };
}
