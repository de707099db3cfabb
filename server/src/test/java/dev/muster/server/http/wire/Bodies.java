package dev.muster.server.http.wire;

import java.nio.charset.StandardCharsets;

/** Small builders for hand-written request bodies in tests. Single quotes stand for double quotes. */
final class Bodies {
    /** A minimal valid pod, with {@code %s} where the spec's fields go. */
    static final String POD = "{'metadata':{'name':'p','namespace':'ns','uid':'u-1'},'spec':{%s}}";

    private Bodies() {}

    static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A filter body for a pod whose spec holds {@code specFields} (single-quoted JSON). */
    static byte[] filterWithSpec(String specFields) {
        return utf8(json("{'Pod':" + POD.formatted(specFields) + ",'NodeNames':['n1']}"));
    }

    /** {@code "resources":{"requests":{...}}} for a container from alternating name/quantity pairs. */
    static String requests(String... nameQuantity) {
        StringBuilder sb = new StringBuilder("'resources':{'requests':{");
        for (int i = 0; i < nameQuantity.length; i += 2) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('\'').append(nameQuantity[i]).append("':'").append(nameQuantity[i + 1]).append('\'');
        }
        return sb.append("}}").toString();
    }

    static String container(String... nameQuantity) {
        return "{'name':'c'," + requests(nameQuantity) + "}";
    }

    static String sidecar(String... nameQuantity) {
        return "{'name':'s','restartPolicy':'Always'," + requests(nameQuantity) + "}";
    }

    static String list(String... resourceList) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < resourceList.length; i += 2) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('\'').append(resourceList[i]).append("':'").append(resourceList[i + 1]).append('\'');
        }
        return sb.append('}').toString();
    }
}
