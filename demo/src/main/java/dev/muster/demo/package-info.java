/**
 * The demo's entry point ({@link dev.muster.demo.Main}: {@code demo}, {@code serve --embedded}, {@code queues},
 * {@code gang}) and its assembly: {@link dev.muster.demo.EmbeddedMuster} runs the real extender and the real
 * controller against an {@link dev.muster.demo.cluster.EmbeddedCluster} — verbs over HTTP, the allocation
 * stream over gRPC, status written back into the cluster — and {@link dev.muster.demo.DemoRun} plays a
 * scenario on it with the kube-scheduler stand-in and records what happened for the report.
 */
package dev.muster.demo;
