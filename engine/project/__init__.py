"""Job files (TOML) and result files (JSON): the contract shared by CLI, GUI and checks."""
from engine.project.job_file import job_from_dict, job_to_dict, load_job, save_job, load_data

__all__ = ["job_from_dict", "job_to_dict", "load_job", "save_job", "load_data"]
