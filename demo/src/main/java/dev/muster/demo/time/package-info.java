/**
 * Simulated time for the demo: {@link dev.muster.demo.time.SimClock} (scenario time, compressed by a speed
 * factor, pausable) and {@link dev.muster.demo.time.SimTimer} (runs tasks when simulated time reaches them).
 * Only the workload lives in simulated time (arrivals, container start-up, run durations, sampling); the
 * extender, the controller and the scheduler driver run in real time over real sockets.
 */
package dev.muster.demo.time;
