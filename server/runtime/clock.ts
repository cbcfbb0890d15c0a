/**
 * The relay's one clock type: wall-clock milliseconds since the epoch (UTC). Every module that
 * reads the time takes one (default `systemClock`), so tests can move time. Durations measured
 * within a process use performance.now() instead, which no setting of the system clock moves.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
