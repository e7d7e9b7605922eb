"""Characters that are frequent in real Chinese, Japanese and Korean prose.

Legacy CJK encodings share byte ranges, so GBK bytes decoded as Big5 (or EUC-KR, EUC-JP) give
*valid* characters, often even "common" ones by any dictionary's measure. What mojibake does not
give is the steep frequency curve of real text: a few hundred characters make up most of any
page. These short lists (written for neardup, grouped by topic, not in frequency order) are that
curve's head; :mod:`.plausibility` scores a candidate decoding by the share of its characters found
here. Order and exact membership do not matter, only that each list is a few hundred everyday
characters of its script.
"""

from __future__ import annotations

_SIMPLIFIED = (
    "的一是不了人我在有他这中大来上个国和也子时道说们为到以要就出会可你对生能而那得于着下自之"
    "年过发后作里用如家多行方成都心想看起还学天所同现当没动面去然定好把种美知工已本经长者其事些"
    "实样开外进儿此第高理将间等意民最日从问两正力头无很被并主手老部新情分度体位机前表全与公明见"
    "又别信提水政相关性教点重各平路再论题己法战应文量条太向气回社比该直几命门因由走少口原结合化"
    "话加常反真通物果特它先给接变放员解决利山代内建立名运指白世报制或任品期设做西东南北身张月感"
    "觉叫认计区受思资边让便色电安系统管数且总书需何始产界农业商场价格市金钱研究科技术历史际交流"
    "活组织领导干群众服务基础展改革济环境保护健康医疗校师友孩父母亲妈爸庭今明昨早晚午地城乡村府"
    "司企银网络息据目划吗呢吧啊她您每更像什么怎样哪谁快慢请谢再见买卖吃喝穿住听读写言语字词句"
    "车站路线票钱货费收支付记录讲座议案件规则保持需求提供帮助希望相信觉得喜欢知道告诉认为准备"
)

_TRADITIONAL = (
    "的一是不了人我在有他這中大來上個國和也子時道說們為到以要就出會可你對生能而那得於著下自之"
    "年過發後作裡裏用如家多行方成都心想看起還學天所同現當沒動面去然定好把種美知工已本經長者其事"
    "些實樣開外進兒此第高理將間等意民最日從問兩正力頭無很被並主手老部新情分度體位機前表全與公明"
    "見又別信提水政相關性教點重各平路再論題己法戰應文量條太向氣回社比該直幾命門因由走少口原結合"
    "化話加常反真通物果特它先給接變放員解決利山代內建立名運指白世報制或任品期設做西東南北身張月"
    "感覺叫認計區受思資邊讓便色電安系統管數且總書需何始產界農業商場價格市金錢研究科技術歷史際交"
    "流活組織領導幹群眾服務基礎展改革濟環境保護健康醫療校師友孩父母親媽爸庭今明昨早晚午地城鄉村"
    "府司企銀網絡息據目劃嗎呢吧啊她您每更像什麼怎樣哪誰快慢請謝再見買賣吃喝穿住聽讀寫言語字詞句"
    "車站路線票錢貨費收支付記錄講座議案件規則保持需求提供幫助希望相信覺得喜歡知道告訴認為準備"
)

_JAPANESE_KANJI = (
    "日本人今私時間年月週曜朝夜食飲買見聞行来帰休働会社員学校先生友達電車自動新雑誌病院薬医者銀"
    "郵便局店品物質問題答試験勉強練習仕事結婚旅写真映画音楽歌手紙番号住所名前家族兄弟姉妹両親供"
    "男女彼方様皆場合必要大切簡単利不有元気円駅売読話書語思言分出上下中入小山川田口目耳足花空雨"
)

_HANGUL = (
    "이다는의에하고을를가한서지기로사도어리자일그수나대정시인해요있아게것보면내우만마국라적제주"
    "부으전들년상과성여오같장계었니없구생화위학소신용문동러무연경습비중까원미말야거모했데않세실"
    "되재저방할때결치관간개식합금발물공교음반영통달알행체분선명후단심점작업회날외당터속등르안건"
    "직표산활권진운차변각민현편강설호감유질력증평토출입조석목파술번월복울환청급역론준형처태향근"
    "망락종초약천몸길손눈집밥책밤낮봄름을겨울씨님께니습입했"
)

#: Ideographs and Hangul syllables that real text is mostly made of.
FREQUENT: frozenset[str] = frozenset(_SIMPLIFIED + _TRADITIONAL + _JAPANESE_KANJI + _HANGUL)
