package catalogue

// derivedFamilies are computed by the exporter from CloudWatch history:
// read/write-ratio drift, peak-to-average, surge retention and the
// capacity-mode cost what-if.
var derivedFamilies = []Family{}
