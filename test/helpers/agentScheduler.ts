// A Scheduler over a simulated clock and the fake agent runner, for budget and rate-limit tests.
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { Scheduler } from '../../src/core/engine/scheduling/scheduler';
import type { SchedulerOptions } from '../../src/core/engine/scheduling/schedulerOptions';
import type { EngineEvent } from '../../src/core/engine/types';
import { FakeAgentRunner, type AgentScript } from './fakeAgentRunner';
import { makeGraph, type StepSpec } from './graph';

export function agentScheduler(
  specs: StepSpec[],
  script: AgentScript,
  opts: Partial<SchedulerOptions> = {},
  plan = {},
) {
  const clock = new SimClock();
  const runner = new FakeAgentRunner(clock, script);
  const events: EngineEvent[] = [];
  const graph = makeGraph(specs, { plan });
  const sched = new Scheduler({
    graph,
    runId: 'r1',
    runner,
    clock,
    weight: () => 10,
    random: () => 0,
    onEvent: (e) => events.push(e),
    outputIntervalMs: 0,
    ...opts,
  });
  return { clock, runner, events, run: () => clock.runUntil(sched.run()) };
}
