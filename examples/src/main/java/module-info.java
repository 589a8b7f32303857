/** Runnable GraphRT examples; the decode-loop demo is the README's main job. */
module dev.graphrt.examples {
    requires dev.graphrt.core;
    requires org.slf4j;
    requires jmh.core;
    requires HdrHistogram; // no module name of its own: the name comes from the jar's file name

    exports dev.graphrt.examples.bench to
            jmh.core;

    opens dev.graphrt.examples.bench to
            jmh.core;
    opens dev.graphrt.examples.bench.jmh_generated to
            jmh.core;
}
