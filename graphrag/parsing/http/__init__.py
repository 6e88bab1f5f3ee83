"""HTTP call sites: the requests a file's code sends (client sets per language, URL
templates). The graph step links them to the ENDPOINTs they reach."""
