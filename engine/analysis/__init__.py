"""Analyses of input and output tables for the Analyze-utility and Analyze-risk perspectives.

Every function takes an `EncodedTable` or a DataFrame plus column names and returns
small dataclasses or DataFrames; none imports Qt. Long analyses take a progress
callback and a cancel callable (`engine.progress`).
"""
from engine.analysis.classification import (ClassificationComparison, ClassifierPerformance,
                                            compare_classification)
from engine.analysis.hipaa import IdentifierMatch, detect_identifiers, identifiers_frame
from engine.analysis.qi_analysis import (QIAnalysis, combination_warning, count_combinations,
                                         qi_analysis)
from engine.analysis.quality import AttributeQuality, QualityReport, quality
from engine.analysis.risk import (AttackerRisk, ClassSizes, RiskSummary, analyze_risk,
                                  class_size_profile, class_sizes, risk_profile, risk_summary)
from engine.analysis.statistics import (SummaryStatistics, contingency, frequencies,
                                        summary_statistics)

__all__ = [
    "frequencies", "contingency", "summary_statistics", "SummaryStatistics",
    "quality", "QualityReport", "AttributeQuality",
    "compare_classification", "ClassificationComparison", "ClassifierPerformance",
    "class_sizes", "risk_profile", "class_size_profile", "risk_summary", "analyze_risk",
    "ClassSizes", "RiskSummary", "AttackerRisk",
    "detect_identifiers", "identifiers_frame", "IdentifierMatch",
    "qi_analysis", "count_combinations", "combination_warning", "QIAnalysis",
]
