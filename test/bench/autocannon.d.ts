// The part of autocannon v9's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    headers?: Record<string, string>;
  }

  export interface Histogram {
    average: number;
    p99: number;
  }

  export interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }

  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
