package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.resources.Resources;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two APIs defining a PodGroup of the same name in one namespace: the older one is the gang. */
class GangClaimsTest {
    private static final GangKey KEY = new GangKey("ns", "pg");

    private static PodGroupSpec spec(GangApi api, int minMember) {
        return new PodGroupSpec(KEY, minMember, Map.of(), Resources.ZERO, "default", "", null, api, null);
    }

    @Test
    void theOlderPodGroupIsTheGangAndTheOtherTakesOverWhenItIsDeleted() {
        GangClaims claims = new GangClaims();
        PodGroupSpec kube = spec(GangApi.KUBERNETES, 2);
        PodGroupSpec sp = spec(GangApi.SCHEDULER_PLUGINS, 3);
        assertThat(claims.claim(GangApi.SCHEDULER_PLUGINS, sp, Instant.ofEpochSecond(20))).isEqualTo(new GangClaims.Effect.Upsert(sp));
        // an older one of another API is listed later (e.g. after a restart): it becomes the gang
        assertThat(claims.claim(GangApi.KUBERNETES, kube, Instant.ofEpochSecond(10))).isEqualTo(new GangClaims.Effect.Upsert(kube));
        assertThat(claims.owner(KEY)).isEqualTo(GangApi.KUBERNETES);
        // updates of the ignored one change nothing
        assertThat(claims.claim(GangApi.SCHEDULER_PLUGINS, spec(GangApi.SCHEDULER_PLUGINS, 5), Instant.ofEpochSecond(20)))
                .isEqualTo(new GangClaims.Effect.None());
        // the gang's PodGroup is deleted: the other one (its latest spec) is the gang now
        assertThat(claims.release(GangApi.KUBERNETES, KEY)).isEqualTo(new GangClaims.Effect.Upsert(spec(GangApi.SCHEDULER_PLUGINS, 5)));
        assertThat(claims.owner(KEY)).isEqualTo(GangApi.SCHEDULER_PLUGINS);
        assertThat(claims.release(GangApi.SCHEDULER_PLUGINS, KEY)).isEqualTo(new GangClaims.Effect.Delete(KEY));
        assertThat(claims.owner(KEY)).isNull();
        assertThat(claims.release(GangApi.SCHEDULER_PLUGINS, KEY)).isEqualTo(new GangClaims.Effect.Delete(KEY));
    }

    @Test
    void deletingTheIgnoredOneChangesNothingAndTiesGoToVolcano() {
        GangClaims claims = new GangClaims();
        Instant same = Instant.ofEpochSecond(5);
        claims.claim(GangApi.KUBERNETES, spec(GangApi.KUBERNETES, 2), same);
        assertThat(claims.claim(GangApi.VOLCANO, spec(GangApi.VOLCANO, 4), same)).isEqualTo(new GangClaims.Effect.Upsert(spec(GangApi.VOLCANO, 4)));
        assertThat(claims.release(GangApi.KUBERNETES, KEY)).isEqualTo(new GangClaims.Effect.None());
        assertThat(claims.owner(KEY)).isEqualTo(GangApi.VOLCANO);
    }
}
