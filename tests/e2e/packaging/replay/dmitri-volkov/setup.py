from setuptools import find_packages, setup

setup(
    name="ticketsort",
    version="1.0.0",
    description="Triage support tickets with an LLM; record once, replay offline",
    author="Dmitri Volkov",
    python_requires=">=3.9",
    packages=find_packages(exclude=["tests", "tests.*"]),
    install_requires=[
        "requests>=2.31,<3",
    ],
    extras_require={
        "test": ["pytest>=7"],
    },
    entry_points={
        "console_scripts": [
            "ticketsort=ticketsort.__main__:main",
        ],
    },
)
