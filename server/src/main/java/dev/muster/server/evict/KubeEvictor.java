package dev.muster.server.evict;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1Eviction;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Preconditions;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import okhttp3.Call;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Evictor} over the Kubernetes Eviction API: one {@code POST /api/v1/namespaces/{ns}/pods/{name}/eviction} of a
 * {@code policy/v1 Eviction} per victim, with the pod's UID as a precondition (a pod recreated under the same name is
 * never evicted by mistake), so the API server applies PodDisruptionBudgets and the pod's own grace period as for
 * {@code kubectl drain}. Run on a virtual thread, so the caller never blocks.
 *
 * <p>Outcomes (one attempt each; the scheduling core decides what a failure means for its preemptor):
 * <ul>
 *   <li>200/201 → {@link EvictionOutcome.Evicted};</li>
 *   <li>404, or 409 for the UID precondition (the pod was deleted and recreated) → {@link EvictionOutcome.Gone} (the API
 *       server checks the precondition when it deletes, after the budget: a recreated pod that a budget covers may be
 *       answered 429 instead);</li>
 *   <li>429 → {@link EvictionOutcome.RefusedByBudget} with the API server's message (a budget allows no disruption now,
 *       or its status is older than its spec);</li>
 *   <li>anything else, or no answer → {@link EvictionOutcome.Failed} naming the HTTP status or the I/O error.</li>
 * </ul>
 * {@link #check} is the same POST with {@code ?dryRun=All}: the API server runs every check (the pod, the budgets, the UID
 * precondition) and answers the same codes, but neither deletes the pod nor spends the budget's disruption.
 * The request is built by client-java's typed {@code createNamespacedPodEviction} (its authentication, TLS, base path
 * and serialisation); the answer is read raw, because the API server answers an Eviction with a {@code Status}, which
 * the generated {@code V1Eviction} model rejects.
 *
 * <p>Thread-safe. At most {@link #MAX_IN_FLIGHT} POSTs are in flight at once (a semaphore; waiting happens on virtual
 * threads). Every POST first asks {@code leading}: a process that no longer holds the Lease (or has not renewed it
 * within its renew deadline) evicts nothing. {@link #close()} sets the volatile {@code closed} flag and interrupts
 * evictions in flight; each, and every later one, completes {@link EvictionOutcome.Failed} "evictor closed".
 */
public final class KubeEvictor implements Evictor, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KubeEvictor.class);
    /** Evictions in flight at once: a preemption of a large gang evicts many pods together. */
    static final int MAX_IN_FLIGHT = 32;

    private final CoreV1Api api;
    private final BooleanSupplier leading;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("kube-evict-", 0).factory());
    private volatile boolean closed;
    private final LeasePreemptionRecords records; // null: decisions are not recorded (no next leader to read them)

    /**
     * @param client  an ApiClient with bounded timeouts ({@link dev.muster.common.kube.KubeClients#requests()})
     * @param leading asked right before every POST: false fails the eviction without a POST, so a deposed or
     *                frozen-and-woken leader never evicts
     */
    public KubeEvictor(ApiClient client, BooleanSupplier leading) {
        this(client, leading, null);
    }

    /** @param records where decisions are recorded for the next leader ({@link LeasePreemptionRecords}); null: nowhere */
    public KubeEvictor(ApiClient client, BooleanSupplier leading, LeasePreemptionRecords records) {
        this.api = new CoreV1Api(Objects.requireNonNull(client, "client"));
        this.leading = Objects.requireNonNull(leading, "leading");
        this.records = records;
    }

    @Override
    public CompletionStage<String> record(dev.muster.core.preempt.PreemptionRecord decision) {
        return records == null ? Evictor.super.record(decision) : records.record(decision);
    }

    @Override
    public void forget(dev.muster.core.preempt.PreemptionRecord decision) {
        if (records != null) {
            records.forget(decision);
        }
    }

    @Override
    public CompletionStage<java.util.List<dev.muster.core.preempt.PreemptionRecord>> records() {
        return records == null ? Evictor.super.records() : records.records();
    }

    /** Only the leader decides preemptions: a standby's core takes nobody's room. */
    @Override
    public boolean ready() {
        return leading.getAsBoolean();
    }

    @Override
    public CompletionStage<EvictionOutcome> evict(PodId pod, String why) {
        return submit(pod, why, false);
    }

    /** The same POST with {@code ?dryRun=All}: the API server asks the budgets and answers as it would, evicting nothing. */
    @Override
    public CompletionStage<EvictionOutcome> check(PodId pod) {
        return submit(pod, "", true);
    }

    private CompletionStage<EvictionOutcome> submit(PodId pod, String why, boolean dryRun) {
        Objects.requireNonNull(pod, "pod");
        CompletableFuture<EvictionOutcome> result = new CompletableFuture<>();
        try {
            executor.execute(() -> result.complete(run(pod, why, dryRun)));
        } catch (RejectedExecutionException e) {
            result.complete(new EvictionOutcome.Failed("evict " + pod + ": evictor closed"));
        }
        return result;
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        if (records != null) {
            records.close();
        }
    }

    private EvictionOutcome run(PodId pod, String why, boolean dryRun) {
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            return new EvictionOutcome.Failed("evict " + pod + ": evictor closed");
        }
        try {
            if (closed) {
                return new EvictionOutcome.Failed("evict " + pod + ": evictor closed");
            }
            if (!leading.getAsBoolean()) { // fenced: checked after any wait, right before the POST
                return new EvictionOutcome.Failed("evict " + pod + ": this muster extender does not hold its Lease (lost, or not renewed"
                        + " within the renew deadline): no Eviction is posted");
            }
            EvictionOutcome outcome = post(pod, dryRun);
            if (dryRun) {
                if (!(outcome instanceof EvictionOutcome.Evicted)) {
                    log.info("dry-run eviction of {}: {}", pod, outcome);
                }
                return outcome;
            }
            switch (outcome) {
                case EvictionOutcome.Evicted e -> log.info("evicted {}: {}", pod, why);
                case EvictionOutcome.Gone g -> log.info("evict {}: already gone", pod);
                case EvictionOutcome.RefusedByBudget r -> log.info("evict {}: refused by a disruption budget: {}", pod, r.message());
                case EvictionOutcome.Failed f -> log.warn("{}", f.message());
            }
            return outcome;
        } catch (RuntimeException e) {
            log.error("evict {} failed unexpectedly", pod, e);
            return new EvictionOutcome.Failed("evict " + pod + ": " + e);
        } finally {
            inFlight.release();
        }
    }

    /** The {@code policy/v1} Eviction of {@code pod}, on the condition that its UID is still {@code pod.uid()}. */
    static V1Eviction eviction(PodId pod) {
        return new V1Eviction().apiVersion("policy/v1").kind("Eviction")
                .metadata(new V1ObjectMeta().name(pod.name()).namespace(pod.namespace()))
                .deleteOptions(new V1DeleteOptions().preconditions(new V1Preconditions().uid(pod.uid())));
    }

    private EvictionOutcome post(PodId pod, boolean dryRun) {
        Call call;
        try {
            var request = api.createNamespacedPodEviction(pod.name(), pod.namespace(), eviction(pod));
            call = (dryRun ? request.dryRun("All") : request).buildCall(null);
        } catch (ApiException e) { // buildCall only throws for a missing required parameter
            return new EvictionOutcome.Failed("evict " + pod + ": invalid eviction request: " + e.getMessage());
        }
        int code;
        String body;
        try (Response response = call.execute()) {
            code = response.code();
            body = response.body() == null ? "" : response.body().string();
        } catch (IOException e) {
            if (closed) {
                return new EvictionOutcome.Failed("evict " + pod + ": evictor closed");
            }
            return new EvictionOutcome.Failed("evict " + pod + ": API server unreachable: " + e);
        }
        return outcome(pod, code, message(body));
    }

    /** What the answer {@code code} with the Status message {@code message} means. */
    static EvictionOutcome outcome(PodId pod, int code, String message) {
        if (code == 200 || code == 201) {
            return new EvictionOutcome.Evicted();
        }
        if (code == 404) {
            return new EvictionOutcome.Gone();
        }
        if (code == 409 && message.contains("UID")) { // "Precondition failed: UID in precondition: ..., UID in object meta: ..."
            return new EvictionOutcome.Gone();
        }
        if (code == 429) {
            return new EvictionOutcome.RefusedByBudget(message);
        }
        return new EvictionOutcome.Failed("evict " + pod + ": the API server answered HTTP " + code + (message.isEmpty() ? "" : ": " + message));
    }

    /** The {@code message} of a {@code Status} body, else the body itself (shortened to one line). */
    private static String message(String body) {
        try {
            JsonElement json = JsonParser.parseString(body);
            if (json.isJsonObject() && json.getAsJsonObject().get("message") instanceof JsonElement m && m.isJsonPrimitive()) {
                return m.getAsString();
            }
        } catch (RuntimeException e) {
            // not JSON: the body is the message
        }
        String oneLine = body == null ? "" : body.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 197) + "...";
    }
}
