"""The breakdown chart and the legend placement every chart shares."""
