package dev.muster.common.leader;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link LeaseStore} over {@code coordination.k8s.io/v1} Leases with client-java's {@link CoordinationV1Api}: read,
 * create, and replace with {@code metadata.resourceVersion} (HTTP 409 → {@link LeaseStoreException#isConflict()}).
 * Times are written in UTC at microsecond precision (the API's MicroTime). Thread-safe (stateless over a
 * thread-safe ApiClient).
 */
public final class KubeLeaseStore implements LeaseStore {
    static final String API_VERSION = "coordination.k8s.io/v1";
    static final String KIND = "Lease";

    private final CoordinationV1Api api;
    private final String namespace;
    private final String name;

    public KubeLeaseStore(ApiClient client, String namespace, String name) {
        this.api = new CoordinationV1Api(Objects.requireNonNull(client, "client"));
        this.namespace = requireName("lease namespace", namespace);
        this.name = requireName("lease name", name);
    }

    @Override
    public Optional<LeaseRecord> get() throws LeaseStoreException {
        try {
            return Optional.of(toRecord(api.readNamespacedLease(name, namespace).execute()));
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw failure("read", e);
        }
    }

    @Override
    public LeaseRecord create(LeaseRecord record) throws LeaseStoreException {
        try {
            return toRecord(api.createNamespacedLease(namespace, toLease(record, null)).execute());
        } catch (ApiException e) {
            throw failure("create", e);
        }
    }

    @Override
    public LeaseRecord update(LeaseRecord record) throws LeaseStoreException {
        if (record.resourceVersion().isEmpty()) {
            throw new LeaseStoreException("update of Lease " + describe() + " needs a resourceVersion", false, null);
        }
        try {
            return toRecord(api.replaceNamespacedLease(name, namespace, toLease(record, record.resourceVersion())).execute());
        } catch (ApiException e) {
            throw failure("update", e);
        }
    }

    @Override
    public String describe() {
        return namespace + "/" + name;
    }

    private V1Lease toLease(LeaseRecord r, String resourceVersion) {
        return new V1Lease()
                .apiVersion(API_VERSION)
                .kind(KIND)
                .metadata(new V1ObjectMeta().name(name).namespace(namespace).resourceVersion(resourceVersion))
                .spec(new V1LeaseSpec()
                        .holderIdentity(r.holderIdentity())
                        .leaseDurationSeconds((int) Math.max(1, r.leaseDuration().toSeconds()))
                        .acquireTime(microTime(r.acquireTime()))
                        .renewTime(microTime(r.renewTime()))
                        .leaseTransitions(r.leaseTransitions()));
    }

    private static LeaseRecord toRecord(V1Lease lease) {
        V1LeaseSpec spec = lease.getSpec() == null ? new V1LeaseSpec() : lease.getSpec();
        Integer seconds = spec.getLeaseDurationSeconds();
        return new LeaseRecord(
                spec.getHolderIdentity(),
                Duration.ofSeconds(seconds == null || seconds < 1 ? 1 : seconds),
                spec.getAcquireTime() == null ? null : spec.getAcquireTime().toInstant(),
                spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant(),
                spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions(),
                lease.getMetadata() == null ? "" : lease.getMetadata().getResourceVersion());
    }

    private static OffsetDateTime microTime(Instant t) {
        return t == null ? null : OffsetDateTime.ofInstant(t.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    private LeaseStoreException failure(String what, ApiException e) {
        String message = what + " Lease " + describe() + ": " + describe(e);
        return new LeaseStoreException(message, e.getCode() == 409, e);
    }

    static String describe(ApiException e) {
        if (e.getCode() == 0) {
            return e.getCause() != null ? e.getCause().toString() : String.valueOf(e.getMessage());
        }
        String body = e.getResponseBody();
        return "HTTP " + e.getCode() + (body == null || body.isBlank() ? "" : ": " + abbreviate(body));
    }

    private static String abbreviate(String s) {
        String oneLine = s.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 297) + "...";
    }

    private static String requireName(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }
}
