package dev.muster.common.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.kube.MockKubeApi;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client-java Lease adapter over real HTTP against the fabric8 mock API server (CRUD mode). */
class KubeLeaseStoreTest {
    private MockKubeApi api;
    private KubeLeaseStore store;

    @BeforeEach
    void start() {
        api = MockKubeApi.crud();
        store = new KubeLeaseStore(api.clients().requests(), "muster-system", "muster-extender");
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void createReadUpdateWithOptimisticConcurrency() throws Exception {
        assertThat(store.get()).isEmpty();
        Instant t0 = Instant.parse("2026-03-01T10:00:00.123456Z");

        LeaseRecord created = store.create(new LeaseRecord("muster-0_10.0.0.1", Duration.ofSeconds(15), t0, t0, 0, ""));
        assertThat(created.resourceVersion()).isNotEmpty();

        LeaseRecord read = store.get().orElseThrow();
        assertThat(read.holderIdentity()).isEqualTo("muster-0_10.0.0.1");
        assertThat(read.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(read.renewTime()).isEqualTo(t0);
        assertThat(read.acquireTime()).isEqualTo(t0);
        assertThat(read.resourceVersion()).isEqualTo(created.resourceVersion());

        Instant t1 = t0.plusSeconds(2);
        LeaseRecord renewed = store.update(new LeaseRecord("muster-0_10.0.0.1", Duration.ofSeconds(15), t0, t1, 0, read.resourceVersion()));
        assertThat(renewed.resourceVersion()).isNotEqualTo(read.resourceVersion());
        assertThat(store.get().orElseThrow().renewTime()).isEqualTo(t1);

        // a writer holding the old version loses
        assertThatThrownBy(() -> store.update(new LeaseRecord("muster-1_10.0.0.2", Duration.ofSeconds(15), t1, t1, 1, read.resourceVersion())))
                .isInstanceOfSatisfying(LeaseStoreException.class, e -> assertThat(e.isConflict()).isTrue())
                .hasMessageContaining("muster-system/muster-extender");
        // and so does a second creator
        assertThatThrownBy(() -> store.create(new LeaseRecord("muster-1_10.0.0.2", Duration.ofSeconds(15), t1, t1, 0, "")))
                .isInstanceOfSatisfying(LeaseStoreException.class, e -> assertThat(e.isConflict()).isTrue());
    }

    @Test
    void twoElectorsOverHttpHandOverAfterExpiry() {
        FakeClock clock = new FakeClock();
        LeaderElectionConfig config = LeaderElectionConfig.DEFAULTS;
        RecordingCallbacks bEvents = new RecordingCallbacks();
        LeaderElector a = new LeaderElector(store, "muster-0_10.0.0.1", config, clock, new RecordingCallbacks());
        LeaderElector b = new LeaderElector(new KubeLeaseStore(api.clients().requests(), "muster-system", "muster-extender"),
                "muster-1_10.0.0.2", config, clock, bEvents);

        a.tick();
        b.tick();
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(b.leader()).map(LeaderIdentity::podIp).contains("10.0.0.1");

        clock.advance(config.leaseDuration()); // a stopped renewing
        b.tick();
        assertThat(b.isLeader()).isTrue();
        assertThat(bEvents.events()).containsExactly("leader muster-0_10.0.0.1", "leader muster-1_10.0.0.2", "started");

        a.tick();
        assertThat(a.isLeader()).isFalse();
        assertThat(a.leader()).map(LeaderIdentity::podIp).contains("10.0.0.2");
    }

    @Test
    void unreachableApiServerIsAnOrdinaryFailure() {
        KubeLeaseStore unreachable = new KubeLeaseStore(api.clients().requests(), "muster-system", "x");
        api.close();
        assertThatThrownBy(unreachable::get)
                .isInstanceOfSatisfying(LeaseStoreException.class, e -> assertThat(e.isConflict()).isFalse())
                .hasMessageContaining("read Lease muster-system/x");
        api = MockKubeApi.crud(); // for @AfterEach
    }
}
