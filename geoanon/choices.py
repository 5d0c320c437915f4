"""The options of every job, in one place and without numpy, so that the
command line builds its parser from the library's own lists. The first
choice of each is its default, in the API and on the command line; the
defaults of a few numbers are here too."""

__all__ = ["CONTIGUITY", "COORDINATES_MISSING", "DESIGNS", "EXTENTS", "GROUNDS",
           "LABEL_METHODS", "LABEL_MISSING", "LABEL_ORDERS", "LOCATION_LOSSES", "POINT_JOB_METHODS", "POOLS",
           "POINT_METHODS", "REGIONS_UNKNOWN", "REGION_METHODS", "REGION_SMALL", "SUPPRESS_METHODS", "TREATMENTS",
           "TAIL_REACH", "WITHHELD", "ZIP_LEVELS"]

POINT_METHODS = ("balanced", "gaps", "paper")          # geoanon.partition_points
POINT_JOB_METHODS = ("gaps", "balanced", "paper")      # geoanon.generalize_points: edges away from the records
REGION_METHODS = ("balanced", "paper", "exact")        # geoanon.partition_graph / generalize_regions
REGION_SMALL = ("error", "suppress", "nearest")        # pieces of the map too light for k
CONTIGUITY = ("rook", "queen")                         # adjacency of polygons
LABEL_METHODS = ("balanced", "fold", "spread", "paper-5/2", "exact")   # geoanon.cover_labels
LABEL_ORDERS = ("given", "decreasing", "random")
LABEL_MISSING = ("label", "error")
SUPPRESS_METHODS = ("auto", "exact", "milp", "matching", "lattice", "approx")   # geoanon.suppress
DESIGNS = ("joint", "frontier", "location-first", "greedy")   # geoanon.anonymize: where the location cuts go
LOCATION_LOSSES = ("spacing", "spread", "range", "km")      # geoanon.anonymize: what a location costs the search
POOLS = ("places", "classes")                        # geoanon.anonymize: which records max_pooled spends
EXTENTS = ("box", "tile")                              # geoanon.anonymize: what a class publishes
TREATMENTS = ("interval", "hierarchy", "suppress", "set")   # how a quasi-identifier is published
COORDINATES_MISSING = ("error", "suppress")            # rows without coordinates
REGIONS_UNKNOWN = ("error", "suppress")                # records naming regions the map lacks
ZIP_LEVELS = ("zip", "zip3", "county", "state")        # ZIP codes published as themselves or rolled up
GROUNDS = ("equal", "ordered")                         # the EMD's ground distances by name
TAIL_REACH = 4.0       # geoanon.anonymize: a location wider than this many typical k-neighbourhoods pays for its tail
WITHHELD = 0.02        # geoanon.points.isolated: the default budget of isolated records withheld, a share of the rows
