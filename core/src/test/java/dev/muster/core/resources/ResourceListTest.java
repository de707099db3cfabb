package dev.muster.core.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResourceListTest {

    @Test
    void requestInputNamingAResourceNothingOffersFitsNowhereAndRegistersNothing() {
        int before = ResourceNames.count();
        Resources request = new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests")
                .put("cpu", "500m").put("example.com/made-up-" + System.nanoTime(), "1").put("example.com/other-" + System.nanoTime(), "2")
                .build();
        Resources node = new ResourceList(ResourceList.Names.REGISTER, "allocatable").put("cpu", "64").put("memory", "256Gi").build();

        assertThat(ResourceNames.count()).isLessThanOrEqualTo(before + 1); // at most the one UNKNOWN bucket, once
        assertThat(request.asMap()).containsEntry(ResourceNames.UNKNOWN, 3L).containsEntry("cpu", 500L);
        assertThat(request.fitsIn(node)).isFalse();
        assertThat(request.shortageAgainst(node).asMap()).containsOnlyKeys(ResourceNames.UNKNOWN);
    }

    @Test
    void clusterObjectsRegisterTheirExtendedResources() {
        String gpu = "example.com/gpu-" + System.nanoTime();
        Resources node = new ResourceList(ResourceList.Names.REGISTER, "allocatable").put(gpu, "8").build();
        Resources request = new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests").put(gpu, "2").build();

        assertThat(ResourceNames.lookup(gpu)).isNotNegative();
        assertThat(request.asMap()).containsEntry(gpu, 2L);
        assertThat(request.fitsIn(node)).isTrue();
    }

    @Test
    void theGangMarkerIsNotedButNeverCountedSoAMarkedPodFitsWhereItWouldFitWithoutIt() {
        Resources node = new ResourceList(ResourceList.Names.REGISTER, "allocatable").put("cpu", "4").build();
        for (ResourceList.Names names : ResourceList.Names.values()) {
            ResourceList marked = new ResourceList(names, "requests").put("cpu", "1").put(ResourceNames.GANG_MARKER, "0");
            assertThat(marked.marked()).isTrue();
            assertThat(marked.build().asMap()).doesNotContainKey(ResourceNames.GANG_MARKER).containsEntry("cpu", 1000L);
            assertThat(marked.build().fitsIn(node)).isTrue();
        }
        assertThat(ResourceNames.lookup(ResourceNames.GANG_MARKER)).as("never registered").isNegative();
        assertThat(new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests").put("cpu", "1").marked()).isFalse();
        assertThat(new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests").putNothing(ResourceNames.GANG_MARKER).marked()).isTrue();
    }

    @Test
    void badInputIsRefusedWithAMessageNamingTheProblem() {
        assertThatThrownBy(() -> new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests").put("bad name!", "1"))
                .isInstanceOf(InvalidQuantityException.class).hasMessageContaining("invalid resource name \"bad name!\"");
        assertThatThrownBy(() -> new ResourceList(ResourceList.Names.KNOWN_ONLY, "overhead").put("cpu", "-10m"))
                .hasMessage("overhead must not be negative, got \"-10m\"");
        assertThatThrownBy(() -> new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests").put("cpu", "1").put("cpu", "2"))
                .hasMessage("duplicate key \"cpu\"");
        assertThatThrownBy(() -> new ResourceList(ResourceList.Names.REGISTER, "capability").put("memory", "lots"))
                .isInstanceOf(InvalidQuantityException.class);
    }
}
