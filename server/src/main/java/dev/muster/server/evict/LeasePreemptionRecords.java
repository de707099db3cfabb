package dev.muster.server.evict;

import com.google.gson.Gson;
import com.google.gson.JsonParseException;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionRecord;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where preemption decisions are recorded for the next leader: annotations of one Lease in Muster's namespace (by
 * default {@code muster-extender-preemptions}, beside the extender's own election Lease), one annotation
 * {@code preemptions.muster.dev/<hash of the preemptor>} per decision, whose value is the decision as JSON (preemptor,
 * id, victims by unit). The extender's Role may create Leases and get and update only this one and its election Lease:
 * nothing else is granted for it. The Lease's spec is left empty: nobody elects on it.
 *
 * <p><b>Who writes.</b> Only the leader: every write first asks {@code leading} (as every Eviction POST does), so a
 * deposed leader changes nothing. A next leader reads the records after its first full sync.
 *
 * <p><b>Concurrency.</b> Thread-safe. Every read and write runs on one virtual thread of its own executor, one at a
 * time in the order asked, so this process never races itself on the Lease; each write reads the Lease, changes one
 * annotation and replaces it at the resourceVersion read (a conflict, from another writer in between, is read again and
 * retried, at most {@link #CONFLICT_TRIES} times). The caller never blocks: answers complete the returned stages.
 * The Lease's annotations hold at most 256 KiB together (about 2,000 victim pods); a record that does not fit is
 * refused by the API server, and then its decision evicts nothing.
 */
public final class LeasePreemptionRecords implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeasePreemptionRecords.class);
    static final String PREFIX = "preemptions.muster.dev/";
    static final int CONFLICT_TRIES = 5;
    private static final Gson GSON = new Gson();

    private final CoordinationV1Api api;
    private final String namespace;
    private final String name;
    private final BooleanSupplier leading;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("preemption-records").factory());

    /** The JSON shape of one record. */
    record Stored(String namespace, String name, String id, List<List<StoredPod>> units) {}

    record StoredPod(String uid, String namespace, String name) {}

    public LeasePreemptionRecords(ApiClient client, String namespace, String name, BooleanSupplier leading) {
        this.api = new CoordinationV1Api(Objects.requireNonNull(client, "client"));
        this.namespace = requireName("namespace", namespace);
        this.name = requireName("name", name);
        this.leading = Objects.requireNonNull(leading, "leading");
    }

    /** Stores {@code r} (replacing its preemptor's record): completes with null, or with why it is not stored. */
    public CompletionStage<String> record(PreemptionRecord r) {
        return submit(() -> {
            String why = change(key(r.preemptor()), GSON.toJson(toStored(r)), null);
            if (why != null) {
                log.warn("preemption for {} not recorded: {}", r.preemptor(), why);
            }
            return why;
        });
    }

    /** Deletes {@code r}'s record, if the stored one has its id. Failures are logged: the next leader rolls it back or finishes it. */
    public void forget(PreemptionRecord r) {
        submit(() -> {
            String why = change(key(r.preemptor()), null, r.id());
            if (why != null) {
                log.warn("preemption record for {} not deleted: {}", r.preemptor(), why);
            }
            return why;
        });
    }

    /** Every record stored (an unreadable one is logged and skipped); completes exceptionally when the Lease cannot be read. */
    public CompletionStage<List<PreemptionRecord>> records() {
        CompletableFuture<List<PreemptionRecord>> out = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    out.complete(parse(read()));
                } catch (ApiException e) {
                    log.warn("preemption records in Lease {} cannot be read (HTTP {}): no preemption is decided until they are", describe(),
                            e.getCode());
                    out.completeExceptionally(new IllegalStateException("read Lease " + describe() + ": HTTP " + e.getCode(), e));
                } catch (RuntimeException e) {
                    log.warn("preemption records in Lease {} cannot be read: no preemption is decided until they are", describe(), e);
                    out.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            out.completeExceptionally(new IllegalStateException("preemption records closed"));
        }
        return out;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    String describe() {
        return namespace + "/" + name;
    }

    private CompletionStage<String> submit(java.util.function.Supplier<String> write) {
        CompletableFuture<String> out = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    out.complete(write.get());
                } catch (RuntimeException e) {
                    out.complete("unexpected failure: " + e);
                }
            });
        } catch (RejectedExecutionException e) {
            out.complete("preemption records closed");
        }
        return out;
    }

    /**
     * Sets annotation {@code key} to {@code value} (null: removes it, only if its record's id is {@code onlyId}).
     * Null when done, else why not.
     */
    private String change(String key, String value, String onlyId) {
        for (int attempt = 1; ; attempt++) {
            if (!leading.getAsBoolean()) {
                return "this muster extender does not hold its Lease: nothing is written";
            }
            try {
                V1Lease lease = read();
                if (lease == null) {
                    if (value == null) {
                        return null;
                    }
                    api.createNamespacedLease(namespace, new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease")
                            .metadata(new V1ObjectMeta().name(name).namespace(namespace).annotations(Map.of(key, value)))
                            .spec(new V1LeaseSpec())).execute();
                    return null;
                }
                Map<String, String> annotations = new HashMap<>(lease.getMetadata().getAnnotations() == null ? Map.of()
                        : lease.getMetadata().getAnnotations());
                if (value == null) {
                    String stored = annotations.get(key);
                    if (stored == null || !onlyId.equals(idOf(stored))) {
                        return null; // already gone, or a later decision of the same preemptor
                    }
                    annotations.remove(key);
                } else {
                    annotations.put(key, value);
                }
                lease.getMetadata().setAnnotations(annotations);
                api.replaceNamespacedLease(name, namespace, lease).execute();
                return null;
            } catch (ApiException e) {
                if (e.getCode() == 409 && attempt < CONFLICT_TRIES) {
                    continue; // written in between (or created): read it again
                }
                return "Lease " + describe() + ": HTTP " + e.getCode() + (e.getResponseBody() == null ? "" : ": " + oneLine(e.getResponseBody()));
            }
        }
    }

    private V1Lease read() throws ApiException {
        try {
            return api.readNamespacedLease(name, namespace).execute();
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw e;
        }
    }

    private List<PreemptionRecord> parse(V1Lease lease) {
        List<PreemptionRecord> out = new ArrayList<>();
        if (lease == null || lease.getMetadata() == null || lease.getMetadata().getAnnotations() == null) {
            return out;
        }
        lease.getMetadata().getAnnotations().forEach((k, v) -> {
            if (!k.startsWith(PREFIX)) {
                return;
            }
            try {
                out.add(fromStored(GSON.fromJson(v, Stored.class)));
            } catch (JsonParseException | IllegalArgumentException | NullPointerException e) {
                log.warn("Lease {}: annotation {} is not a preemption record, skipped: {}", describe(), k, e.toString());
            }
        });
        return out;
    }

    private static String idOf(String json) {
        try {
            Stored s = GSON.fromJson(json, Stored.class);
            return s == null ? null : s.id();
        } catch (JsonParseException e) {
            return null;
        }
    }

    static Stored toStored(PreemptionRecord r) {
        List<List<StoredPod>> units = new ArrayList<>();
        for (List<PodId> u : r.units()) {
            units.add(u.stream().map(p -> new StoredPod(p.uid(), p.namespace(), p.name())).toList());
        }
        return new Stored(r.preemptor().namespace(), r.preemptor().name(), r.id(), units);
    }

    static PreemptionRecord fromStored(Stored s) {
        List<List<PodId>> units = new ArrayList<>();
        for (List<StoredPod> u : s.units()) {
            units.add(u.stream().map(p -> new PodId(p.uid(), p.namespace(), p.name())).toList());
        }
        return new PreemptionRecord(new GangKey(s.namespace(), s.name()), s.id(), units);
    }

    /** {@code preemptions.muster.dev/<first 32 hex of sha-256 of namespace/name>}: a valid annotation name at any length. */
    static String key(GangKey preemptor) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((preemptor.namespace() + "/" + preemptor.name()).getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    private static String oneLine(String s) {
        String one = s.replaceAll("\\s+", " ").trim();
        return one.length() <= 200 ? one : one.substring(0, 197) + "...";
    }

    private static String requireName(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("preemption records Lease " + what + " must not be empty");
        }
        return value;
    }
}
