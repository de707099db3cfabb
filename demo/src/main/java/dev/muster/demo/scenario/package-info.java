/**
 * Scenarios: what the demo's cluster looks like and what arrives on it, read from YAML
 * ({@link dev.muster.demo.scenario.ScenarioReader}, errors name the file, line and field) into an immutable
 * {@link dev.muster.demo.scenario.Scenario}, and turned by a seeded random source into a time-ordered
 * {@link dev.muster.demo.scenario.WorkloadPlan} of PodGroups and pods to create. The format is described in
 * {@code docs/demo.md}; the built-in scenario is the resource {@code scenarios/default.yaml}.
 */
package dev.muster.demo.scenario;
