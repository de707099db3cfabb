/**
 * The HTTP adapter kube-scheduler talks to: {@code POST /filter, /prioritize, /bind, /preempt} on Muster's own
 * HTTP/1.1 server ({@link dev.muster.common.http.Http1Server}: a thread per keep-alive connection, platform threads for the first few), plus
 * {@code /healthz}, {@code /readyz}, {@code /metrics}.
 * {@link dev.muster.server.http.ExtenderVerbs} turns bytes into {@link dev.muster.core.scheduler.GangScheduler}
 * calls through the streaming wire codec ({@code wire}); {@link dev.muster.server.http.ExtenderHttpServer}
 * adds the guards (method, path, body size, leadership, readiness). A standby forwards verbs to the
 * leader ({@link dev.muster.server.http.LeaderForwarder}).
 */
package dev.muster.server.http;
