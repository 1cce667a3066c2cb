// Each API key's test clock (docs/clock.md). Stripe-style test clocks: a key that moves its clock moves
// its own world only (its triggers' runs and execution timeouts, its webhook retries and their window,
// its environments' idle time, its coverage buckets), never another key's. An owner (the hash of a key)
// has an EmulatorClock (its offset) and a Scheduler on it, made when first needed and dropped once it
// has neither an offset nor a job, so memory follows what is in use. Work no key owns (the periodic
// sweeps) runs on real time.
//
// Bounds (docs/security.md#the-test-clock): an owner's offset is at most EMULATOR_CLOCK_MAX_OFFSET_DAYS
// (every time the emulator stamps then stays far inside what a Date can hold); at most
// EMULATOR_CLOCK_MAX_KEYS owners have a moved clock at once; one move makes at most
// EMULATOR_CLOCK_MAX_RUNS_PER_MOVE trigger runs of its owner (takeMoveRun).

import { EmulatorClock } from "./clock.js";
import { FailedPreconditionError, InvalidArgumentError } from "./errors.js";
import { Scheduler, type ScheduledWork } from "./scheduler.js";

/** Time as an owner (an API key) sees it: the wall clock plus however far that owner moved its clock. */
export interface OwnerClock {
  now(owner: string): number;
}

/** Work at a time of an owner's clock; returns the cancel. */
export interface OwnerScheduler extends OwnerClock {
  at(owner: string, atMs: number, work: ScheduledWork): () => void;
  /** Runs what is due on every owner's clock (or on one owner's); resolves when that work has settled. */
  runDue(owner?: string): Promise<void>;
  /**
   * Whether a trigger run due at `scheduledMs` may still run as part of the owner's latest clock move
   * (counting it), or the move has used its EMULATOR_CLOCK_MAX_RUNS_PER_MOVE. Runs not made due by a
   * move (real time reached them) are never counted.
   */
  takeMoveRun(owner: string, scheduledMs: number): boolean;
  /** EMULATOR_CLOCK_MAX_RUNS_PER_MOVE, for messages. */
  readonly maxRunsPerMove: number;
}

export interface ClockBounds {
  /** EMULATOR_CLOCK_MAX_OFFSET_DAYS in ms. */
  maxOffsetMs: number;
  /** EMULATOR_CLOCK_MAX_KEYS: owners whose clock may be ahead of real time at once. */
  maxMovedOwners: number;
  /** EMULATOR_CLOCK_MAX_RUNS_PER_MOVE: trigger runs one move may make, all the owner's triggers together. */
  maxRunsPerMove: number;
}

interface World {
  clock: EmulatorClock;
  scheduler: Scheduler;
  /** The latest move: what it made due (jobs at or before dueByMs) and how many trigger runs it may still make. */
  move: { dueByMs: number; runsLeft: number } | null;
}

const DAY_MS = 86_400_000;

export class TestClocks implements OwnerScheduler {
  private readonly worlds = new Map<string, World>();
  private readonly moveListeners = new Set<(owner: string) => void>();
  private closed = false;

  constructor(
    private readonly bounds: ClockBounds,
    private readonly wall: () => number = Date.now,
  ) {}

  get maxRunsPerMove(): number {
    return this.bounds.maxRunsPerMove;
  }

  now(owner: string): number {
    return this.worlds.get(owner)?.clock.now() ?? this.wall();
  }

  /** How far ahead of real time the owner's clock is, in ms. */
  offsetMs(owner: string): number {
    return this.worlds.get(owner)?.clock.offset ?? 0;
  }

  at(owner: string, atMs: number, work: ScheduledWork): () => void {
    return this.worldOf(owner).scheduler.at(atMs, work);
  }

  /**
   * Moves the owner's clock forward by `ms`, past nothing its bounds refuse (a refusal moves nothing);
   * resolves once what the move made due has run (started, for long work).
   */
  advance(owner: string, ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new InvalidArgumentError(`the clock only moves forward, by a finite number of ms, not ${ms}`);
    const offset = this.offsetMs(owner);
    if (offset + ms > this.bounds.maxOffsetMs) {
      const maxDays = this.bounds.maxOffsetMs / DAY_MS;
      throw new InvalidArgumentError(
        `Moving this key's clock ${ms / 1000} s more would put it ${((offset + ms) / DAY_MS).toFixed(2)} days ahead of real time, past the bound of ${maxDays} days (EMULATOR_CLOCK_MAX_OFFSET_DAYS); it is ${(offset / DAY_MS).toFixed(2)} days ahead now. POST {"reset": true} to go back to real time, or raise EMULATOR_CLOCK_MAX_OFFSET_DAYS.`,
      );
    }
    if (offset === 0 && ms > 0 && this.movedOwners() >= this.bounds.maxMovedOwners) {
      throw new FailedPreconditionError(
        `${this.bounds.maxMovedOwners} keys already have a clock ahead of real time, the most this emulator keeps (EMULATOR_CLOCK_MAX_KEYS); this key's clock stays on real time until one of them resets its clock (POST {"reset": true}), or raise EMULATOR_CLOCK_MAX_KEYS.`,
      );
    }
    const world = this.worldOf(owner);
    world.move = { dueByMs: world.clock.now() + ms, runsLeft: this.bounds.maxRunsPerMove };
    world.clock.advance(ms);
    this.moved(owner);
    return world.scheduler.runDue();
  }

  /** Back to real time for the owner; nothing already run is undone. */
  reset(owner: string): Promise<void> {
    const world = this.worlds.get(owner);
    if (!world) return Promise.resolve();
    world.move = null;
    world.clock.reset();
    this.moved(owner);
    return world.scheduler.runDue();
  }

  /** `listener(owner)` after every move (or reset) of an owner's clock, before what it made due runs. */
  onMove(listener: (owner: string) => void): () => void {
    this.moveListeners.add(listener);
    return () => this.moveListeners.delete(listener);
  }

  runDue(owner?: string): Promise<void> {
    const worlds = owner !== undefined ? [this.worlds.get(owner)] : [...this.worlds.values()];
    return Promise.all(worlds.map((world) => world?.scheduler.runDue())).then(() => undefined);
  }

  takeMoveRun(owner: string, scheduledMs: number): boolean {
    const move = this.worlds.get(owner)?.move;
    if (!move || scheduledMs > move.dueByMs) return true;
    if (move.runsLeft <= 0) return false;
    move.runsLeft -= 1;
    return true;
  }

  /** Owners with a clock or jobs kept (for tests: memory follows use). */
  get size(): number {
    return this.worlds.size;
  }

  close(): void {
    this.closed = true;
    for (const world of this.worlds.values()) world.scheduler.close();
    this.worlds.clear();
  }

  private movedOwners(): number {
    let count = 0;
    for (const world of this.worlds.values()) if (world.clock.offset > 0) count += 1;
    return count;
  }

  private moved(owner: string): void {
    for (const listener of [...this.moveListeners]) {
      try {
        listener(owner);
      } catch (error) {
        console.error("a clock listener failed:", error);
      }
    }
  }

  private worldOf(owner: string): World {
    const existing = this.worlds.get(owner);
    if (existing) return existing;
    if (this.closed) throw new Error("the clocks are closed");
    const clock = new EmulatorClock(this.wall);
    const world: World = { clock, scheduler: new Scheduler(clock, () => this.dropIfUnused(owner, world)), move: null };
    this.worlds.set(owner, world);
    return world;
  }

  /** An owner on real time with nothing scheduled needs no clock of its own. */
  private dropIfUnused(owner: string, world: World): void {
    if (world.clock.offset !== 0 || this.worlds.get(owner) !== world) return;
    this.worlds.delete(owner);
    world.scheduler.close();
  }
}
