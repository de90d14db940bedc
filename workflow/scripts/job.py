"""The workflow's generic jobs as a script: ``python workflow/scripts/job.py COMMAND ...`` is
``python -m duelbench.job_main COMMAND ...`` (the rules of workflow/rules/jobs.smk call
the module)."""

import sys

from duelbench.job_main import main

if __name__ == "__main__":
    sys.exit(main())
