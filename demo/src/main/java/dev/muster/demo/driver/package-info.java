/**
 * A kube-scheduler stand-in that drives the real extender over HTTP: a scheduling queue with kube-scheduler's
 * active, backoff and unschedulable pools ({@link dev.muster.demo.driver.SchedulingQueue}), its own node-fit
 * filter and node sampling on a cache of bound and assumed pods ({@link dev.muster.demo.driver.SchedulerCache}),
 * and a serial scheduling loop whose binds run asynchronously ({@link dev.muster.demo.driver.SchedulerDriver},
 * built on {@link dev.muster.testsupport.extender.KubeSchedulerSimulator}). Also the live progress line.
 */
package dev.muster.demo.driver;
