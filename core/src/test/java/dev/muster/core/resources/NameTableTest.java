package dev.muster.core.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ResourceNames}' cap of {@value ResourceNames#MAX_EXTENDED} extended names, on a table of its own (the real one
 * is shared by the whole JVM, so filling it would change every later test).
 */
class NameTableTest {
    private final List<String> warnings = new ArrayList<>();
    private final NameTable table = new NameTable(ResourceNames.MAX_EXTENDED, warnings::add);

    private List<Integer> fill(int n) {
        List<Integer> indexes = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            indexes.add(table.indexOf("example.com/r" + i));
        }
        return indexes;
    }

    @Test
    void theFirst64ExtendedNamesEachGetTheirOwnIndexAfterTheStandardOnes() {
        List<Integer> indexes = fill(ResourceNames.MAX_EXTENDED);
        assertThat(indexes).doesNotHaveDuplicates().allMatch(i -> i >= ResourceNames.STANDARD_COUNT);
        assertThat(table.count()).isEqualTo(ResourceNames.STANDARD_COUNT + ResourceNames.MAX_EXTENDED);
        assertThat(table.indexOf(ResourceNames.CPU)).isEqualTo(ResourceNames.CPU_INDEX);
        assertThat(warnings).isEmpty();
    }

    @Test
    void the65thNameIsCountedAsTheResourceNoNodeOffersAndTheWarningNamesItAndTheLimitOnce() {
        List<Integer> before = fill(ResourceNames.MAX_EXTENDED);
        int unknown = table.indexOf("example.com/r65");
        assertThat(table.nameOf(unknown)).isEqualTo(ResourceNames.UNKNOWN);
        assertThat(table.indexOf("example.com/r66")).as("later new names share it").isEqualTo(unknown);
        assertThat(table.lookup("example.com/r65")).as("no index of its own").isEqualTo(-1);
        assertThat(table.count()).as("the table grows by that one entry only").isEqualTo(ResourceNames.STANDARD_COUNT + ResourceNames.MAX_EXTENDED + 1);
        assertThat(warnings).containsExactly("more than 64 extended resource names seen; example.com/r65 and later new names are counted as "
                + ResourceNames.UNKNOWN + " (no node offers them)");

        // nothing accepted is lost: every name seen before keeps its index
        for (int i = 1; i <= ResourceNames.MAX_EXTENDED; i++) {
            assertThat(table.indexOf("example.com/r" + i)).isEqualTo(before.get(i - 1));
            assertThat(table.nameOf(before.get(i - 1))).isEqualTo("example.com/r" + i);
        }
    }

    @Test
    void aNameNeverSeenIsLookedUpAsTheResourceNoNodeOffers() {
        assertThat(table.lookup("example.com/new")).isEqualTo(-1);
        assertThat(table.nameOf(table.knownOrUnknown("example.com/new"))).isEqualTo(ResourceNames.UNKNOWN);
        assertThat(table.lookup("example.com/new")).as("not registered by a lookup").isEqualTo(-1);
    }

    @Test
    void anEmptyNameIsRefusedAndChangesNothing() {
        int count = table.count();
        assertThatThrownBy(() -> table.indexOf(" ")).isInstanceOf(IllegalArgumentException.class).hasMessage("resource name must not be empty");
        assertThat(table.count()).isEqualTo(count);
    }
}
