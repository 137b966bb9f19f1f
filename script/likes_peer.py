#!/usr/bin/env python3
"""Adds scikit-learn's MultinomialNB and BernoulliNB, trained on the very features likes-benchmark used (MeCab
nouns plus @author), to its rows, for each persona (one FEATURES.json per seed), and prints the mean over the
personas as a Markdown table, then each persona's F1 and precision of the default beside scikit-learn's best.
Usage: likes_peer.py FEATURES.json [FEATURES.json ...]"""
import json
import re
import sys
from collections import defaultdict

from sklearn.feature_extraction import DictVectorizer
from sklearn.metrics import f1_score, fbeta_score, precision_score, recall_score
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

METRICS = ["precision", "recall", "f1", "f05", "likeShare"]


def rows_for(path):
    data = json.load(open(path))
    vectorizer = DictVectorizer()
    train = vectorizer.fit_transform([{feature: 1 for feature in features} for features in data["train"]])
    test = vectorizer.transform([{feature: 1 for feature in features} for features in data["test"]])
    rows = list(data["rows"])
    truth = data["testLabels"]
    for name, model in [("scikit-learn MultinomialNB (alpha 1), same features", MultinomialNB()),
                        ("scikit-learn BernoulliNB (alpha 1), same features", BernoulliNB())]:
        predicted = model.fit(train, data["trainLabels"]).predict(test)
        rows.append({"decision": name, "precision": precision_score(truth, predicted, zero_division=0),
                     "recall": recall_score(truth, predicted), "f1": f1_score(truth, predicted),
                     "f05": fbeta_score(truth, predicted, beta=0.5), "likeShare": sum(predicted) / len(predicted)})
    return data, rows


paths = sys.argv[1:]
sums = defaultdict(lambda: defaultdict(float))
order = []
choices = defaultdict(list)
verdicts = []
shares = []
for path in paths:
    data, rows = rows_for(path)
    shares.append(data["testLikeShare"])
    for row in rows:
        name = re.sub(r" \[.*\]$", "", row["decision"])
        chosen = re.search(r"\[(.*)\]$", row["decision"])
        if chosen:
            choices[name].append(chosen.group(1))
        if name not in order:
            order.append(name)
        for metric in METRICS:
            sums[name][metric] += row[metric]
    ours = next(row for row in rows if row["decision"].startswith("auto"))
    best = max((row for row in rows if row["decision"].startswith("scikit-learn")), key=lambda row: row["f1"])
    verdicts.append((ours, best))

count = len(paths)
print(f"\nMean over {count} generated persona(s); held-out posts the human liked: {sum(shares) / count:.0%} on average.\n")
print("| decision | precision | recall | F1 | F0.5 | share of posts liked |")
print("|---|---:|---:|---:|---:|---:|")
for name in order:
    mean = {metric: sums[name][metric] / count for metric in METRICS}
    print(f"| {name} | {mean['precision']:.2f} | {mean['recall']:.2f} | {mean['f1']:.2f} | {mean['f05']:.2f} | {mean['likeShare']:.0%} |")
print()
for name, chosen in choices.items():
    print(f"{name}: chose {', '.join(chosen)}")
print()
wins = 0
for index, (ours, best) in enumerate(verdicts):
    won = ours["f1"] > best["f1"] and ours["precision"] > best["precision"]
    wins += won
    print(f"persona {index + 1}: default F1 {ours['f1']:.2f}, precision {ours['precision']:.2f}; scikit-learn's best F1 "
          f"{best['f1']:.2f}, precision {best['precision']:.2f}: {'beaten' if won else 'NOT beaten'}")
ours_f1 = sum(ours["f1"] for ours, _ in verdicts) / count
best_f1 = sum(best["f1"] for _, best in verdicts) / count
ours_p = sum(ours["precision"] for ours, _ in verdicts) / count
best_p = sum(best["precision"] for _, best in verdicts) / count
print(f"\nOn average the default {'beats' if ours_f1 > best_f1 and ours_p > best_p else 'does NOT beat'} scikit-learn's best: "
      f"F1 {ours_f1:.3f} vs {best_f1:.3f}, precision {ours_p:.3f} vs {best_p:.3f} (won on {wins} of {count} personas).")
